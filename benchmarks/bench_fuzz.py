"""Benchmark: cases per second of the fuzz stage against the plain ``schemathesis run`` command.

Both run side by side in one invocation, on the same contract, against the same target (the
reference server on 127.0.0.1 with a rate limit high enough never to answer 429), with the same
examples per operation and the same phases: the pr tier's, which are the CLI's defaults (explicit
examples, coverage, generated fuzzing, then stateful scenarios with the tier's steps and count;
the stage's credentials items are left out, the CLI has none). Cases are counted from each one's
output: the stage's summary line ("fuzz: ... N cases in T s") and the CLI's "Test cases: N
generated" and "in T s".

    python benchmarks/bench_fuzz.py [--examples 30] [--seed 20261122] [--rounds 3]
    python benchmarks/bench_fuzz.py --phases unit   # examples and fuzzing per operation only
    python benchmarks/bench_fuzz.py --profile [--examples 30]   # py-spy on the stage: top entries
    python benchmarks/bench_fuzz.py --replay 100                 # replay a corpus of 100 cases
    python benchmarks/bench_fuzz.py --baseline DIR   # also the stage of another checkout (before)

Each round runs both, in alternating order (stage first in odd rounds, the CLI first in even
ones), so a burst of noise on this shared machine hits both sides alike. Prints every round's
figures and three ratios (stage / CLI): cases per second as each tool times itself, per wall-clock
second of the whole process, and per CPU-second of the process (user + system: what the tool
itself spent, the figure least moved by other jobs on the machine), with the load average before
and after; then the median ratios over the rounds. The goal is at least 1.0 on the wall clock.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.registry.fuzz import pytest_args
from conformance.registry.fuzz_budget import tier

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "openapi" / "openapi.yaml"
HIGH_BURST, HIGH_REFILL = 10**7, 10.0**7  # never a 429


@dataclass(frozen=True)
class Shape:
    """What both sides run: the stage's tier and items, and the CLI's phases (the same)."""

    tier: str
    items: str  # pytest -k of the stage's items
    phases: tuple[str, ...]


SHAPES = {
    # The pr tier's phases (per operation examples, coverage, fuzzing; then the stateful item):
    # the schemathesis CLI's defaults. The stage's credentials items are left out (the CLI has
    # none).
    "all": Shape(
        "pr", "test_fuzz and not credentials", ("examples", "coverage", "fuzzing", "stateful")
    ),
    # Examples and fuzzing only, per operation (what this benchmark compared before the stage
    # ran on the engine): the smoke tier has no coverage phase, and its stateful item is left out.
    "unit": Shape(
        "smoke", "test_fuzz and not credentials and not stateful", ("examples", "fuzzing")
    ),
}
SHAPE = [SHAPES["all"]]  # the one chosen (--phases)


@dataclass
class Figures:
    name: str
    cases: int
    seconds: float  # as the tool itself reports its run
    wall_seconds: float  # the whole process, start-up and collection included
    cpu_seconds: float  # user + system time of the process

    @property
    def rate(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0

    @property
    def wall_rate(self) -> float:
        return self.cases / self.wall_seconds if self.wall_seconds else 0.0

    @property
    def cpu_rate(self) -> float:
        return self.cases / self.cpu_seconds if self.cpu_seconds else 0.0


def run(command: list[str], cwd: Path, source: Path | None = None) -> tuple[str, float, float]:
    """Output, wall seconds and CPU seconds (user + system) of one child process; ``source``:
    a checkout whose ``conformance`` package it imports instead of this one."""
    env = dict(os.environ, PYTHONPATH=str(source)) if source is not None else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return result.stdout + result.stderr, wall, cpu


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def stage_command(base_url: str, profile: Path, examples: int, seed: int, work: Path) -> list[str]:
    return [
        sys.executable, "-m", "pytest",
        *pytest_args(SHAPE[0].tier, seed), "--fuzz-max-examples", str(examples),
        "-k", SHAPE[0].items,
        "--base-url", base_url, "--target-profile", str(profile),
        "--report-dir", str(work / "stage-report"), "-q", "-p", "no:cacheprovider",
    ]  # fmt: skip


def stage(
    base_url: str, profile: Path, examples: int, seed: int, work: Path, source: Path | None = None
) -> Figures:
    command = stage_command(base_url, profile, examples, seed, work)
    output, wall, cpu = run(command, source or ROOT, source)
    found = re.search(r"fuzz: tier \w+, seed \d+: (\d+) cases in ([\d.]+)s", output)
    if found is None:
        raise SystemExit(f"no fuzz summary line in the stage output:\n{output[-3000:]}")
    name = "fuzz stage" if source is None else "stage, baseline"
    return Figures(name, int(found.group(1)), float(found.group(2)), wall, cpu)


def cli(base_url: str, profile: dict[str, object], examples: int, seed: int, work: Path) -> Figures:
    credentials = profile["credentials"]
    project = profile["project"]
    assert isinstance(credentials, dict) and isinstance(project, dict)
    environment = project["environments"]["development"]
    # The stateful phase's budget as the stage's tier has it (the CLI has no flag for it).
    config = work / "schemathesis.toml"
    chosen = tier(SHAPE[0].tier)
    config.write_text(
        f"[phases.stateful]\nmax-steps = {chosen.stateful_steps}\n"
        f"[phases.stateful.generation]\nmax-examples = {chosen.stateful_examples}\n",
        "utf-8",
    )
    command = [
        str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(config),
        "run", str(CONTRACT), "--url", base_url, "--phases", ",".join(SHAPE[0].phases),
        "--max-examples", str(examples), "--seed", str(seed), "--workers", "1",
        "--generation-database", "none",
        "-H", f"Authorization: Bearer {credentials['pat']}",
        "-H", f"environment_id: {environment}",
    ]  # fmt: skip
    output, wall, cpu = run(command, work)
    cases = re.search(r"(\d+) generated", output)
    seconds = re.search(r" in ([\d.]+)s =+", output)
    if cases is None or seconds is None:
        raise SystemExit(f"no case count in the schemathesis output:\n{output[-3000:]}")
    return Figures("schemathesis run", int(cases.group(1)), float(seconds.group(1)), wall, cpu)


def fresh_server(work: Path, name: str) -> Any:
    from refserver.runner import start_server

    return start_server(
        work / f"{name}-{time.monotonic_ns()}.db",
        rate_burst=HIGH_BURST,
        rate_refill=HIGH_REFILL,
        log_level="error",  # the engine's probes are malformed on purpose: uvicorn warns of each
    )


def measure(
    name: str, examples: int, seed: int, work: Path, baseline: Path | None = None
) -> Figures:
    """One run of ``name`` ("stage", "baseline" or "cli") against a fresh reference server."""
    # A fresh server per run: neither run pays for the other's data.
    server = fresh_server(work, name)
    try:
        profile_path = Path(server.profile_path)
        if name in ("stage", "baseline"):
            source = baseline if name == "baseline" else None
            return stage(server.base_url, profile_path, examples, seed, work, source)
        profile = yaml.safe_load(profile_path.read_text("utf-8"))
        return cli(server.base_url, profile, examples, seed, work)
    finally:
        server.stop()


def show(f: Figures) -> None:
    print(
        f"  {f.name:17} {f.cases:5d} cases in {f.seconds:6.2f}s = {f.rate:5.1f} cases/s "
        f"(wall {f.wall_seconds:6.2f}s = {f.wall_rate:5.1f}/s; "
        f"CPU {f.cpu_seconds:6.2f}s = {f.cpu_rate:5.1f}/s)",
        flush=True,
    )


def profile_stage(
    examples: int, seed: int, work: Path, source: Path | None = None, top: int = 25
) -> None:
    """The stage (of ``source``, a checkout, if given) under py-spy, sampling every frame on the
    wall clock: the top entries by own time and by cumulative time."""
    server = fresh_server(work, "profile")
    try:
        command = stage_command(server.base_url, Path(server.profile_path), examples, seed, work)
        raw = work / "stage.raw"
        spy = ["py-spy", "record", "--format", "raw", "-r", "200", "-o", str(raw), "--", *command]
        output, wall, _ = run(spy, source or ROOT, source)
    finally:
        server.stop()
    line = re.search(r"fuzz: tier .*", output)
    print(f"{'baseline ' + str(source) if source else 'this checkout'}: load {load_average()}")
    print(f"{line.group(0) if line else output[-2000:]} (wall {wall:.1f}s)")
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    samples = 0
    for text in raw.read_text("utf-8").splitlines():
        stack, _, counted = text.rpartition(" ")
        frames = [frame.split(" (")[0] for frame in stack.split(";")]
        samples += int(counted)
        own[frames[-1]] += int(counted)
        for frame in set(frames):
            total[frame] += int(counted)
    print(f"{samples} samples; top {top} by own time:")
    for name, count in own.most_common(top):
        print(f"  {100 * count / samples:5.1f}%  {name}")
    print(f"top {top} by cumulative time (below the pytest and Hypothesis engine frames):")
    shown = [(f, c) for f, c in total.most_common() if 100 * c / samples < 60][:top]
    for name, count in shown:
        print(f"  {100 * count / samples:5.1f}%  {name}")


def replay_timing(count: int, work: Path) -> None:
    """Replay ``count`` hand-written corpus cases (tests/conformance/stages/fuzz/corpus_cases.py)
    against the reference server, as the stage does before it generates anything."""
    sys.path.insert(0, str(ROOT / "tests" / "conformance" / "stages" / "fuzz"))
    mixed_cases = importlib.import_module("corpus_cases").mixed_cases

    from conformance.profile import load
    from conformance.registry.fuzz_budget import tier
    from conformance.stages.fuzz import corpus
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.answers import FuzzCampaign
    from conformance.stages.fuzz.corpus.replay import replay_corpus
    from conformance.traffic.client import Client

    directory = work / "corpus"
    for data in mixed_cases(count):
        corpus.write(directory, data)
    server = fresh_server(work, "replay")
    try:
        profile = load(server.profile_path)
        target = FuzzTarget(server.base_url, profile, "cf-bench0-gw0")
        with Client(server.base_url, profile, run_prefix=target.run_prefix) as client:
            target.provision(client)
        run_ = FuzzCampaign(tier("smoke"), 1, target)
        started = time.perf_counter()
        results = replay_corpus(run_, directory)
        seconds = time.perf_counter() - started
    finally:
        server.stop()
    came_out = collections.Counter(result.came_out for result in results)
    print(
        f"replayed {len(results)} corpus cases in {seconds:.2f}s "
        f"({seconds / max(1, len(results)) * 1000:.0f} ms each; contract loaded once included): "
        f"{dict(came_out)}; load {load_average()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=30, help="examples per operation")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median taken)")
    parser.add_argument(
        "--phases",
        choices=tuple(SHAPES),
        default="all",
        help="all: the pr tier and the CLI's four default phases; unit: examples and fuzzing "
        "per operation only (the smoke tier without its stateful item)",
    )
    parser.add_argument("--profile", action="store_true", help="py-spy the stage, print top")
    parser.add_argument("--replay", type=int, metavar="N", help="time replaying N corpus cases")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="a checkout of an earlier version (git archive REV | tar -x -C DIR): its stage "
        "runs in every round too, with its own ratios to the CLI",
    )
    options = parser.parse_args()
    SHAPE[0] = SHAPES[options.phases]

    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as tmp:
        if options.profile:
            if options.baseline is not None:
                profile_stage(options.examples, options.seed, Path(tmp), options.baseline)
            profile_stage(options.examples, options.seed, Path(tmp))
            return
        if options.replay:
            replay_timing(options.replay, Path(tmp))
            return
        compare(options.examples, options.seed, options.rounds, Path(tmp), options.baseline)


def compare(examples: int, seed: int, rounds: int, work: Path, baseline: Path | None) -> None:
    stages = ("stage", "baseline") if baseline is not None else ("stage",)
    ratios: dict[str, dict[str, list[float]]] = {
        name: {"own timing": [], "wall clock": [], "CPU": []} for name in stages
    }
    every: dict[str, list[Figures]] = {name: [] for name in (*stages, "cli")}
    for round_number in range(1, rounds + 1):
        order = (*stages, "cli") if round_number % 2 else ("cli", *reversed(stages))
        print(f"round {round_number} ({' then '.join(order)}; load {load_average()}):", flush=True)
        figures = {}
        for name in order:
            figures[name] = measure(name, examples, seed, work, baseline)
            every[name].append(figures[name])
            show(figures[name])
        theirs = figures["cli"]
        for name in stages:
            ours, kept = figures[name], ratios[name]
            kept["own timing"].append(ours.rate / theirs.rate)
            kept["wall clock"].append(ours.wall_rate / theirs.wall_rate)
            kept["CPU"].append(ours.cpu_rate / theirs.cpu_rate)
            print(
                f"  ratio {name}: " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in kept.items()),
                flush=True,
            )
        print(f"  (load after the round {load_average()})", flush=True)
    for name in stages:
        print(
            f"median ratio over {rounds} rounds ({name} / schemathesis run): "
            + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in ratios[name].items())
            + "; goal >= 1.0 (wall clock)"
        )
    # The best round of each is the one other jobs on the machine disturbed least.
    best = {
        name: (
            max(f.rate for f in runs),
            max(f.wall_rate for f in runs),
            max(f.cpu_rate for f in runs),
        )
        for name, runs in every.items()
    }
    for name in stages:
        print(
            f"best of {rounds} ({name} / schemathesis run): "
            + ", ".join(
                f"{what} {ours / theirs:.2f}"
                for what, ours, theirs in zip(
                    ("own timing", "wall clock", "CPU"), best[name], best["cli"], strict=True
                )
            )
        )


if __name__ == "__main__":
    main()
