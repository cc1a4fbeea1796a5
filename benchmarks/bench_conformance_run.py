"""Times ``conformance run`` certifying the embedded reference server, against the 12 s target.

A script, not a timed test: wall time depends on the machine and on what else runs on it, so the
load average is printed with each round, and the CPU-seconds of the run (its processes, the
embedded server's included) beside the wall time. With ``--baseline DIR`` (another checkout of
this project, say ``git worktree add /tmp/before <rev>``) each round runs that checkout's kit
too (``PYTHONPATH=DIR``), the two interleaved so background load hits both alike, and the
medians are printed side by side with their ratio (after / before). Usage:

    python benchmarks/bench_conformance_run.py [--rounds 3] [--workers auto]
        [--baseline DIR] [-- extra run args]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 12.0


def one_round(workers: str, extra: list[str], baseline: Path | None) -> tuple[float, float, str]:
    """(wall seconds, CPU-seconds, the verdict line) of one run; ``baseline``: that checkout's."""
    env = dict(os.environ)
    if baseline is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(baseline), env.get("PYTHONPATH", "")]).strip(
            os.pathsep
        )
    with tempfile.TemporaryDirectory(prefix="bench-conformance-") as folder:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run(
            [
                sys.executable, "-m", "conformance.cli", "run", "--quiet",
                "--workers", workers, "--report-dir", folder, *extra,
            ],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            cwd=folder,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = [line for line in result.stdout.splitlines() if line.startswith("conformance: ")]
    line = summary[-1] if summary else result.stderr.strip()[-300:]
    return elapsed, cpu, f"exit {result.returncode} | {line}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="auto")
    parser.add_argument("--baseline", type=Path, help="another checkout, run beside this one")
    parser.add_argument("extra", nargs="*", help="arguments passed on to conformance run")
    options = parser.parse_args()
    kits: list[tuple[str, Path | None]] = [("after", None)]
    if options.baseline is not None:
        if not (options.baseline / "conformance" / "__init__.py").is_file():
            parser.error(f"--baseline {options.baseline}: no conformance package there")
        kits.insert(0, ("before", options.baseline.resolve()))
    walls: dict[str, list[float]] = {name: [] for name, _ in kits}
    cpus: dict[str, list[float]] = {name: [] for name, _ in kits}
    for number in range(1, options.rounds + 1):
        order = kits if number % 2 else list(reversed(kits))  # alternate who goes first
        for name, checkout in order:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            wall, cpu, summary = one_round(options.workers, options.extra, checkout)
            walls[name].append(wall)
            cpus[name].append(cpu)
            print(
                f"round {number} {name:6}: {wall:5.1f} s wall, {cpu:5.1f} CPU-s, "
                f"load average {load:.2f} | {summary}",
                flush=True,
            )
    print()
    for name, _ in kits:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        verdict = "within" if wall <= TARGET_SECONDS else "OVER"
        print(
            f"{name:6}: median {wall:5.1f} s wall ({verdict} the {TARGET_SECONDS:g} s target), "
            f"{cpu:5.1f} CPU-s; best {min(walls[name]):.1f} s"
        )
    if len(kits) == 2:
        wall_ratio = statistics.median(walls["after"]) / statistics.median(walls["before"])
        cpu_ratio = statistics.median(cpus["after"]) / statistics.median(cpus["before"])
        print(f"after / before: {wall_ratio:.2f} wall, {cpu_ratio:.2f} CPU")
    return 0 if min(walls["after"]) <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
