"""How often the client stage's backoff judge (POLL-CLIENT-BACKOFF) fails each backoff form.

Each simulated stage run plays both backoff scenarios (``backoff-5xx`` and ``backoff-refused``,
their own scripts and durations) with instances of one form (``tests/conformance/stages/client/
backoff_forms.py``: the reference client, equal, full and decorrelated jitter, flat retries,
a tight loop, lockstep retries), scheduling noise on every wait, and judges the recordings with
``judge_backoff`` itself. A stage run fails the requirement when either scenario does.

For a correct form the figure is the false-failure rate (anything but a pass: a fail or "not
measurable"); for a faulty one, the catch rate (a fail).

    python benchmarks/bench_client_backoff.py                      # 100,000 runs per form
    python benchmarks/bench_client_backoff.py --runs 20000 --noise loaded --jobs 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.stages.client.backoff_criterion import trend  # noqa: E402
from conformance.stages.client.judge_failures import closed_waits, judge_backoff  # noqa: E402
from conformance.verdict.outcome import Outcome  # noqa: E402
from tests.conformance.stages.client.backoff_forms import FORMS, LOADED, NOISE, Form, simulate  # noqa: E402

FAIL, PASS = Outcome.FAIL, Outcome.PASS

SCENARIOS = ("backoff-5xx", "backoff-refused")
NOISES = {"default": NOISE, "loaded": LOADED}


def _count(job: tuple[int, int, int, str]) -> tuple[int, list[int], int, float]:
    """(form index, runs, seed, noise) -> (form index, [fails per scenario + stage], runs,
    lowest pooled z seen)."""
    index, runs, seed, noise = job
    form: Form = FORMS[index]
    rng = random.Random(seed)
    counts = [0, 0, 0]
    lowest = float("inf")
    for _ in range(runs):
        failed_any = False
        for k, scenario in enumerate(SCENARIOS):
            run = simulate(form, scenario, rng, NOISES[noise])
            verdict = judge_backoff(run)[0].outcome
            bad = verdict != PASS if form.correct else verdict == FAIL
            counts[k] += bad
            failed_any |= bad
            if form.correct:
                pooled = [w for i in run.instances for w in closed_waits(i) if w]
                lowest = min(lowest, trend(pooled).z)
        counts[2] += failed_any
    return index, counts, runs, lowest


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000, help="stage runs per form")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noise", choices=sorted(NOISES), default="default")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--forms", default="", help="only forms whose name contains this")
    options = parser.parse_args(argv)
    chosen = [k for k, f in enumerate(FORMS) if options.forms in f.name]
    chunks = max(1, options.jobs) * 4
    jobs = [
        (
            k,
            options.runs // chunks + (c < options.runs % chunks),
            options.seed * 1000 + 97 * k + c,
            options.noise,
        )
        for k in chosen
        for c in range(chunks)
    ]
    noise = NOISES[options.noise]
    print(
        f"{options.runs:,} simulated stage runs per form, noise: exponential mean "
        f"{1000 * noise.mean_s:g} ms + {100 * noise.hiccup_share:g} % hiccups up to "
        f"{1000 * noise.hiccup_s:g} ms"
    )
    began = time.monotonic()
    totals: dict[int, list[int]] = {k: [0, 0, 0] for k in chosen}
    lowest: dict[int, float] = {k: float("inf") for k in chosen}
    with multiprocessing.Pool(max(1, options.jobs)) as pool:
        for index, counts, _, low in pool.imap_unordered(_count, jobs):
            totals[index] = [a + b for a, b in zip(totals[index], counts, strict=True)]
            lowest[index] = min(lowest[index], low)
    print(f"{'form':28} {'correct':8} {'5xx':>9} {'refused':>9} {'stage run':>10}  lowest z")
    for k in chosen:
        form, counts = FORMS[k], totals[k]
        rates = "".join(f" {100 * c / options.runs:8.4f}%" for c in counts[:2])
        label = "false-failure" if form.correct else "caught"
        low = f"{lowest[k]:.2f}" if form.correct else ""
        print(
            f"{form.name:28} {'yes' if form.correct else 'no':8}{rates} "
            f"{100 * counts[2] / options.runs:9.4f}%  {low}  ({label}; {counts[2]} of "
            f"{options.runs})"
        )
    print(f"{time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
