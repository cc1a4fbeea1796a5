"""How often the per-poll spread criterion (POLL-CLIENT-HINT-JITTER, ``spread_criterion``) fails
a correct client, and catches a spread drawn once per instance.

Each simulated run is the hint scenario's hinted waits: 4 instances of 5 or 6 waits (the
scenario's 650 nominal seconds under a 100 s hint, at the default time scale 0.02: a 2 s bound,
0.6 s of jitter), scheduling noise on every wait, judged by ``per_poll_spread`` itself. The
criterion is a permutation test, so a correct client's false-failure rate is at most
1 / (PERMUTATIONS + 1) whatever its jitter's distribution; the simulation shows it for several.

    python benchmarks/bench_client_hint_spread.py                  # 200,000 correct, 1,000 faulty
    python benchmarks/bench_client_hint_spread.py --correct 20000 --faulty 200 --noise loaded
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from conformance.stages.client.spread_criterion import per_poll_spread  # noqa: E402

BOUND, WIDTH = 2.0, 0.6
INSTANCES = 4
NOISES = {"default": (0.010, 0.01, 0.2), "loaded": (0.025, 0.03, 0.3)}  # mean, hiccups, up to

Draw = Callable[[random.Random], float]
FORMS: dict[str, tuple[bool, Draw]] = {
    # correct: every wait a fresh draw (uniform above, symmetric, a two-point and a peaked jitter)
    "uniform above [I, I(1+r))": (True, lambda r: BOUND + WIDTH * r.random()),
    "uniform symmetric [I(1-r), I(1+r))": (True, lambda r: BOUND - WIDTH + 2 * WIDTH * r.random()),
    "two-point {I, I(1+r)}": (True, lambda r: BOUND + WIDTH * r.choice((0.0, 1.0))),
    "triangular peaked": (True, lambda r: BOUND + r.triangular(0, WIDTH, WIDTH / 2)),
}


def _noise(rng: random.Random, noise: tuple[float, float, float]) -> float:
    mean, hiccups, up_to = noise
    extra = rng.expovariate(1 / mean)
    return extra + (rng.uniform(0, up_to) if rng.random() < hiccups else 0.0)


def _run(rng: random.Random, draw: Draw, once: bool, noise: tuple[float, float, float]) -> bool:
    """One simulated run: True when the criterion fails it (the waits cluster by instance)."""
    series = []
    for _ in range(INSTANCES):
        kept = draw(rng)
        count = rng.choice((5, 6))
        series.append([(kept if once else draw(rng)) + _noise(rng, noise) for _ in range(count)])
    return per_poll_spread(series).clustered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--correct", type=int, default=200_000)
    parser.add_argument("--faulty", type=int, default=1_000)
    parser.add_argument("--noise", choices=sorted(NOISES), default="default")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    noise = NOISES[args.noise]
    started = time.monotonic()
    for name, (_, draw) in FORMS.items():
        failed = sum(_run(rng, draw, False, noise) for _ in range(args.correct))
        print(f"correct, {name}: {failed} of {args.correct} runs failed")
        caught = sum(_run(rng, draw, True, noise) for _ in range(args.faulty))
        print(f"drawn once per instance, {name}: {caught} of {args.faulty} runs caught")
    print(f"noise {args.noise}, {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    main()
