"""Times ``conformance run`` certifying the embedded reference server, against the 15 s target.

A script, not a timed test: wall time depends on the machine and on what else runs on it, so the
load average is printed with each round. Usage:

    python benchmarks/bench_conformance_run.py [--rounds 3] [--workers auto] [-- extra run args]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

TARGET_SECONDS = 15.0


def one_round(workers: str, extra: list[str]) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory(prefix="bench-conformance-") as folder:
        started = time.perf_counter()
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "conformance.cli",
                "run",
                "--quiet",
                "--workers",
                workers,
                "--report-dir",
                folder,
                *extra,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - started
    summary = [line for line in result.stdout.splitlines() if line.startswith("conformance: ")]
    return elapsed, result.returncode, summary[-1] if summary else result.stderr.strip()[-300:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="auto")
    parser.add_argument("extra", nargs="*", help="arguments passed on to conformance run")
    options = parser.parse_args()
    times = []
    for number in range(1, options.rounds + 1):
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        elapsed, code, summary = one_round(options.workers, options.extra)
        times.append(elapsed)
        verdict = "within" if elapsed <= TARGET_SECONDS else "OVER"
        print(
            f"round {number}: {elapsed:5.1f} s ({verdict} the {TARGET_SECONDS:.0f} s target), "
            f"exit {code}, load average {load:.2f} | {summary}",
            flush=True,
        )
    best, worst = min(times), max(times)
    print(f"best {best:.1f} s, worst {worst:.1f} s, target {TARGET_SECONDS:.0f} s")
    return 0 if best <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
