"""Benchmark: cases per second of the fuzz stage against the plain ``schemathesis run`` command.

Both run side by side in one invocation, on the same contract, against the same target (the
reference server on 127.0.0.1 with a rate limit high enough never to answer 429), with the same
examples per operation and the same phases (explicit examples + generated fuzzing, valid
credentials). Cases are counted from each one's output: the stage's summary line
("fuzz: ... N cases in T s") and the CLI's "Test cases: N generated" and "in T s".

    python benchmarks/bench_fuzz.py [--examples 30] [--seed 20261122] [--rounds 3]

Each round runs both, in alternating order (stage first in odd rounds, the CLI first in even
ones), so a burst of noise on this shared machine hits both sides alike. Prints every round's
figures and ratio (stage / CLI), then the median ratio over the rounds; the goal is at least 0.9.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from conformance.stages.fuzz import TEST_MODULE, plugin_args

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "openapi" / "openapi.yaml"
HIGH_BURST, HIGH_REFILL = 10**7, 10.0**7  # never a 429


@dataclass
class Figures:
    name: str
    cases: int
    seconds: float  # as the tool itself reports its run
    wall_seconds: float  # the whole process, start-up and collection included

    @property
    def rate(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0

    @property
    def wall_rate(self) -> float:
        return self.cases / self.wall_seconds if self.wall_seconds else 0.0


def run(command: list[str], cwd: Path) -> tuple[str, float]:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    return result.stdout + result.stderr, time.perf_counter() - started


def stage(base_url: str, profile: Path, examples: int, seed: int, work: Path) -> Figures:
    command = [
        sys.executable, "-m", "pytest",
        *plugin_args("pr", seed), "--fuzz-max-examples", str(examples),
        "--pyargs", TEST_MODULE, "-k", "test_fuzz and not credentials and not Stateful",
        "--base-url", base_url, "--target-profile", str(profile),
        "--report-dir", str(work / "stage-report"), "-q", "-p", "no:cacheprovider",
    ]  # fmt: skip
    output, wall = run(command, ROOT)
    found = re.search(r"fuzz: tier \w+, seed \d+: (\d+) cases in ([\d.]+)s", output)
    if found is None:
        raise SystemExit(f"no fuzz summary line in the stage output:\n{output[-3000:]}")
    return Figures("fuzz stage", int(found.group(1)), float(found.group(2)), wall)


def cli(base_url: str, profile: dict[str, object], examples: int, seed: int, work: Path) -> Figures:
    credentials = profile["credentials"]
    project = profile["project"]
    assert isinstance(credentials, dict) and isinstance(project, dict)
    environment = project["environments"]["development"]
    command = [
        str(Path(sys.executable).with_name("schemathesis")), "run", str(CONTRACT),
        "--url", base_url, "--phases", "examples,fuzzing",
        "--max-examples", str(examples), "--seed", str(seed), "--workers", "1",
        "--generation-database", "none",
        "-H", f"Authorization: Bearer {credentials['pat']}",
        "-H", f"environment_id: {environment}",
    ]  # fmt: skip
    output, wall = run(command, work)
    cases = re.search(r"(\d+) generated", output)
    seconds = re.search(r" in ([\d.]+)s =+", output)
    if cases is None or seconds is None:
        raise SystemExit(f"no case count in the schemathesis output:\n{output[-3000:]}")
    return Figures("schemathesis run", int(cases.group(1)), float(seconds.group(1)), wall)


def measure(name: str, examples: int, seed: int, work: Path) -> Figures:
    """One run of ``name`` ("stage" or "cli") against a fresh reference server of its own."""
    from refserver.runner import start_server

    # A fresh server per run: neither run pays for the other's data.
    server = start_server(
        work / f"{name}-{time.monotonic_ns()}.db", rate_burst=HIGH_BURST, rate_refill=HIGH_REFILL
    )
    try:
        profile_path = Path(server.profile_path)
        if name == "stage":
            return stage(server.base_url, profile_path, examples, seed, work)
        profile = yaml.safe_load(profile_path.read_text("utf-8"))
        return cli(server.base_url, profile, examples, seed, work)
    finally:
        server.stop()


def show(f: Figures) -> None:
    print(
        f"  {f.name:17} {f.cases:6d} cases in {f.seconds:7.2f}s = {f.rate:7.1f} cases/s "
        f"(wall clock {f.wall_seconds:6.2f}s = {f.wall_rate:6.1f} cases/s)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=30, help="examples per operation")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median taken)")
    options = parser.parse_args()

    ratios: list[float] = []
    wall_ratios: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as tmp:
        for round_number in range(1, options.rounds + 1):
            order = ("stage", "cli") if round_number % 2 else ("cli", "stage")
            print(f"round {round_number} ({' then '.join(order)}):", flush=True)
            figures = {}
            for name in order:
                figures[name] = measure(name, options.examples, options.seed, Path(tmp))
                show(figures[name])
            ours, theirs = figures["stage"], figures["cli"]
            ratios.append(ours.rate / theirs.rate)
            wall_ratios.append(ours.wall_rate / theirs.wall_rate)
            print(f"  ratio {ratios[-1]:.2f} (wall clock {wall_ratios[-1]:.2f})", flush=True)
    print(
        f"median ratio over {options.rounds} rounds (stage / schemathesis run): "
        f"{statistics.median(ratios):.2f} (wall clock: {statistics.median(wall_ratios):.2f}); "
        "goal >= 0.90"
    )


if __name__ == "__main__":
    main()
