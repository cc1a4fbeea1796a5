"""The scenario stage against the reference server behind 0, 40 and 100 ms of added latency.

For each delay: a fresh reference server (own SQLite file) behind the latency proxy
(``tests/support/latency_proxy.py``, its own process; 0 ms is a plain reverse proxy), first the
open-loop generator alone (the load-shedding burst and a rate-limit drain as the suite plans them:
planned rate, offered rate, lag, connections), then ``conformance run`` with the default ``--workers
auto`` in a child process. Prints every run's wall time, CPU seconds, verdict line and its ratio to
the 0 ms run, side by side; the goal is at most 2x at 40 ms. A script, not a timed test: the load
average is printed with each run, since other work on the machine moves the figures.

    python benchmarks/bench_latency.py [--delays 0,40,100] [--workers auto]
        [--caps none,4-outstanding,200-per-second] [-- extra run args]

``--caps`` also caps the proxy's throughput (``N-outstanding``: answers outstanding at most;
``N-per-second``: requests let through a second), each cap at each delay; ratios are to the
first row (0 ms, no cap) of the same kit. ``--baseline DIR`` (another checkout of this project,
say ``git worktree add /tmp/before <rev>``) runs that checkout's kit too (``PYTHONPATH=DIR``, the
server still this checkout's), each delay and cap right before this one's, and prints both
kits' rows side by side.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the proxy lives with the tests' support modules, never in the package
sys.path.insert(0, str(ROOT / "tests" / "support"))

from latency_proxy import LatencyProxy  # noqa: E402

from conformance.profile import Profile, load  # noqa: E402
from conformance.run.workers import for_round_trip, round_trip  # noqa: E402
from conformance.traffic.open_loop import Planned, offer, uniform  # noqa: E402
from refserver.runner import start_server  # noqa: E402

GOAL_AT_40 = 2.0


@dataclass
class Row:
    delay_ms: int
    cap: str
    round_trip: float
    workers: str
    wall: float
    cpu: float
    load: float
    summary: str
    offers: list[str]


def polls(profile: Profile, count: int, seconds: float, instance: str | None) -> list[Planned]:
    key = profile.credentials.sdk_keys[0]
    names = profile.headers
    plans = []
    for n, at in enumerate(uniform(count, seconds)):
        headers = {"authorization": key.key, names.environment: key.environments[0]}
        headers[names.instance_id] = instance or f"bench-burst-{time.time_ns()}-{n}"
        plans.append(Planned(at, "/sdk/v2/status", headers))
    return plans


def offers(base_url: str, profile: Profile, latency: float) -> list[str]:
    """The two open-loop shapes the suite sends, offered once each: their figures (run in a
    child process, ``--offer``, so the server's interpreter is not the sender's)."""
    shed = profile.load_shedding
    rate = profile.rate_limit
    drain = round(2 * (rate.burst + rate.refill_per_second))  # as test_rate_limit plans it
    shapes = {
        "burst": polls(profile, shed.burst_requests, shed.window_seconds * 0.8, None),
        "drain": polls(profile, drain, 1.0, f"bench-drain-{time.time_ns()}"),
    }
    lines = []
    for name, plan in shapes.items():
        result = offer(base_url, plan, latency=latency)
        lines.append(f"{name}: {result.describe()}")
        time.sleep(shed.settle_seconds)  # let the shedding window and the bucket settle
    return lines


def proxy_caps(cap: str) -> dict[str, float]:
    """``none``, ``N-outstanding`` or ``N-per-second`` as the proxy's keyword arguments."""
    if cap == "none":
        return {}
    number, _, kind = cap.partition("-")
    key = {"outstanding": "max_concurrent", "per-second": "max_per_second"}[kind]
    return {key: int(number) if kind == "outstanding" else float(number)}


def kit_env(baseline: Path | None) -> dict[str, str]:
    """The environment of a ``conformance run`` child: ``baseline``'s kit first on the path."""
    env = dict(os.environ)
    if baseline is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(baseline), env.get("PYTHONPATH")) if p)
    return env


def one_run(
    delay_ms: int, cap: str, workers: str, extra: list[str], baseline: Path | None = None
) -> Row:
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as folder:
        work = Path(folder)
        server = start_server(work / "refserver.db", profile_path=work / "profile.yaml")
        try:
            with LatencyProxy(str(server.base_url), delay_ms, **proxy_caps(cap)) as proxy:
                profile = load(work / "profile.yaml")
                measured = round_trip(proxy.base_url, profile)
                figures = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--offer",
                        proxy.base_url,
                        str(work / "profile.yaml"),
                    ],
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout.splitlines()
                load_average = os.getloadavg()[0]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                started = time.perf_counter()
                done = subprocess.run(
                    [
                        sys.executable, "-m", "conformance.cli", "run",
                        "--base-url", proxy.base_url,
                        "--profile", str(work / "profile.yaml"),
                        "--report-dir", str(work / "report"),
                        "--workers", workers,
                        "--quiet",
                        *extra,
                    ],
                    capture_output=True,
                    text=True,
                    check=False,
                    env=kit_env(baseline),
                )  # fmt: skip
                wall = time.perf_counter() - started
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if "conformance: conformant" not in done.stdout:  # keep what to look at
                    kept = Path(tempfile.mkdtemp(prefix="bench-latency-kept-"))
                    shutil.copytree(work / "report", kept / "report", dirs_exist_ok=True)
                    print(f"         reports of a run that was not conformant: {kept}", flush=True)
        finally:
            server.stop()
    lines = [line for line in done.stdout.splitlines() if line.startswith("conformance: ")]
    chosen = str(for_round_trip(measured)) if workers == "auto" else workers
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = lines[-1] if lines else done.stderr.strip()[-300:]
    return Row(delay_ms, cap, measured, chosen, wall, cpu, load_average, summary, figures)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", default="0,40,100", help="added round trips in ms")
    parser.add_argument("--caps", default="none", help="proxy throughput caps, comma-separated")
    parser.add_argument("--workers", default="auto")
    parser.add_argument("--baseline", type=Path, help="another checkout, run beside this one")
    parser.add_argument("--offer", nargs=2, metavar=("URL", "PROFILE"), help=argparse.SUPPRESS)
    parser.add_argument("extra", nargs="*", help="arguments passed on to conformance run")
    options = parser.parse_args()
    if options.offer:  # the child process of one_run
        url, profile_path = options.offer
        profile = load(Path(profile_path))
        print("\n".join(offers(url, profile, round_trip(url, profile))))
        return 0
    kits: list[tuple[str, Path | None]] = [("after", None)]
    if options.baseline is not None:
        kits.insert(0, ("before", options.baseline.resolve()))
    rows: dict[str, list[Row]] = {name: [] for name, _ in kits}
    runs = [(cap, int(d)) for cap in options.caps.split(",") for d in options.delays.split(",")]
    for cap, delay in runs:
        for name, checkout in kits:
            row = one_run(delay, cap, options.workers, options.extra, checkout)
            rows[name].append(row)
            print(
                f"{name:6} {delay:4d} ms, cap {cap}: round trip {row.round_trip * 1000:5.1f} ms, "
                f"{row.workers} workers, "
                f"{row.wall:5.1f} s wall, {row.cpu:5.1f} CPU-s, load average {row.load:.2f}",
                flush=True,
            )
            for line in row.offers:
                print(f"         {line}", flush=True)
            print(f"         {row.summary}", flush=True)
    for name, _ in kits:
        base = rows[name][0].wall
        print(f"\n{name}: delay  cap              workers   wall s  ratio  CPU-s")
        for row in rows[name]:
            print(
                f"{'':{len(name) + 2}}{row.delay_ms:4d} ms {row.cap:16} {row.workers:>8} "
                f"{row.wall:8.1f} {row.wall / base:6.2f} {row.cpu:6.1f}"
            )
        at_40 = next((r for r in rows[name] if r.delay_ms == 40 and r.cap == "none"), None)
        if at_40 is not None and rows[name][0].delay_ms == 0:
            ratio = at_40.wall / base
            verdict = "met" if ratio <= GOAL_AT_40 else "NOT met"
            print(f"{name}: 40 ms within {GOAL_AT_40:g}x of 0 ms: {ratio:.2f}x ({verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
