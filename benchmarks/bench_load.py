"""The load stage's generator is never the bottleneck: fleet size, timing error, worker scaling.

Against a bare status endpoint in its own process on 127.0.0.1 (``--target bare``, default:
uvicorn on the fast stack, a 200 without a hash, else 304, so the target is never what limits
the generator) or the reference server in this process (``--target refserver``):

(a) fleet: ``--fleet`` instances (50,000) at a ``--cadence`` (30 s) on ``--workers`` (2) Locust
    worker processes, ramped over one cadence then held for ``--hold`` seconds: offered rate, the
    p99 timing error (send time - planned time) over the held part (target < 100 ms), and each
    worker's CPU-seconds;
(b) scaling: one saturating plan (``--sat-fleet`` instances polling every 50 ms, far over what a
    worker can send) on 1 worker, then on 2: requests per worker CPU-second with two workers
    against one (target >= 0.85: CPU-seconds, since on 2 cores the target shares the machine);
(c) wrk on the same endpoint with the same headers (a 304 poll), ``-t1 -c64``, beside the
    requests/s each worker process reached in (b).

With ``--baseline DIR`` (another checkout of this project, say ``git worktree add /tmp/before
<rev>``) (b) runs that checkout's generator too (``PYTHONPATH=DIR``, in a child process started
outside both checkouts), ``--rounds`` times, the two interleaved and alternating who goes first
so background load hits both alike; the medians are printed side by side with their ratio
(after / before), with the load average before each run.

Locust runs only in child processes (``conformance.stages.load.engine``). Prints the machine
load (``uptime``) before and after; see benchmarks/README.md, load section.

Usage: python benchmarks/bench_load.py [--target bare|refserver] [--fleet 50000] [--cadence 30]
       [--hold 20] [--workers 2] [--sat-fleet 1000] [--sat-seconds 12]
       [--skip-fleet] [--skip-scaling] [--baseline DIR] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from conformance.profile import load as load_profile
from conformance.stages.load.engine import Fleet, run_fleet
from conformance.stages.load.plan import Plan, plan_from
from conformance.stages.load.records import Results
from conformance.stages.load.series import percentile
from refserver.runner import start_server

BARE_BODY = b'{"hash":"h1","configurations":[],"primaryConfigurationId":null,' + (
    b'"experiments":{"user":[],"server":[]},"requiredProperties":[]}'
)


def bare_app() -> Any:
    """A status endpoint that costs nothing: 200 with a fixed snapshot, 304 once it is held."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    etag = {"etag": '"h1"'}

    async def status(request: Request) -> Response:
        if "if-none-match" in request.headers:
            return Response(status_code=304, headers=etag)
        return Response(BARE_BODY, media_type="application/json", headers=etag)

    return Starlette(routes=[Route("/sdk/v2/status", status)])


def serve_bare(port: int) -> None:
    import uvicorn

    from refserver.http_stack import choose

    stack = choose()
    uvicorn.run(
        bare_app(), host="127.0.0.1", port=port, http=stack.http, loop=stack.loop,
        log_level="warning", access_log=False, lifespan="off",
    )  # fmt: skip


def start_bare() -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, __file__, "--serve-bare", str(port)])
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            httpx.get(url + "/sdk/v2/status", timeout=1.0)
            return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the bare endpoint did not start")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def bench_plan(profile: Any, base_url: str, **changes: Any) -> Plan:
    quiet = {"noisy": 0, "anonymous": 0, "write_interval_s": None, "min_interval_s": 0.0}
    return plan_from(profile, base_url, f"bench-{os.getpid()}", None, **{**quiet, **changes})


def worker_cpu(results: Results, what: str = "cpu") -> dict[str, float]:
    """Per worker, seconds of ``what`` from its first flush to its last: ``cpu`` (CPU time),
    ``run_delay`` (waiting for a core while runnable), ``gc_s`` (in the cyclic collector)."""
    return {
        name: round(float(w.get(what, 0.0)) - float(w.get(f"first_{what}", 0.0)), 1)
        for name, w in sorted(results.workers.items())
    }


def fleet_case(profile: Any, base_url: str, options: argparse.Namespace) -> None:
    ramp = options.cadence
    plan = bench_plan(
        profile,
        base_url,
        fleet=options.fleet,
        cadence_s=options.cadence,
        jitter_ratio=0.2,
        ramp_s=ramp,
        run_s=ramp + options.hold,
        timeout_s=10.0,
    )
    started = time.monotonic()
    results = run_fleet(plan, Fleet(local_workers=options.workers, port=free_port(), progress="-"))
    # Planned inside the held part: a poll planned after run_s is sent while the users stop
    # (Locust kills them at run_s), so it is reported apart, never in the p99.
    since = [p for p in results.polls if p.planned - results.started >= ramp]
    held = [p for p in since if p.planned - results.started < plan.run_s]
    lags = [(p.sent - p.planned) * 1000 for p in held]
    after = [(p.sent - p.planned) * 1000 for p in since]
    ramping = [
        (p.sent - p.planned) * 1000 for p in results.polls if p.planned - results.started < ramp
    ]
    span = options.hold
    sent = sum(1 for p in results.polls if ramp <= p.sent - results.started < plan.run_s)
    statuses: dict[int, int] = {}
    for poll in results.polls:
        statuses[poll.status] = statuses.get(poll.status, 0) + 1
    instances = len({p.instance for p in results.polls})
    latencies = [p.latency * 1000 for p in held if p.status]
    print(
        f"(a) fleet {options.fleet} at {options.cadence:g}s cadence on {options.workers} "
        f"workers: {instances} instances polled; while held {sent / span:.0f} req/s sent, "
        f"{len(held) / span:.0f}/s planned (fleet/cadence {options.fleet / options.cadence:.0f}/s)"
        f"; timing error p50 {percentile(lags, 0.5):.1f} ms, p99 {percentile(lags, 0.99):.1f} "
        f"ms, max {max(lags, default=0):.0f} ms (p99 {percentile(after, 0.99):.1f} ms with the "
        f"{len(after) - len(held)} polls planned after run_s; ramp p50 "
        f"{percentile(ramping, 0.5):.1f} ms, p99 {percentile(ramping, 0.99):.1f} ms); target "
        f"latency p50 "
        f"{percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms; "
        f"statuses {statuses}; worker CPU-s {worker_cpu(results)}, waiting for a core "
        f"{worker_cpu(results, 'run_delay')} s, in GC {worker_cpu(results, 'gc_s')} s; "
        f"{time.monotonic() - started:.0f}s wall"
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def saturate(profile: Any, base_url: str, workers: int, options: argparse.Namespace) -> float:
    """Requests per worker CPU-second of a plan no worker can keep up with; prints the rates."""
    plan = bench_plan(
        profile,
        base_url,
        fleet=options.sat_fleet,
        cadence_s=0.05,
        jitter_ratio=0.0,
        ramp_s=1.0,
        run_s=options.sat_seconds,
    )
    results = run_fleet(plan, Fleet(local_workers=workers, port=free_port(), progress=""))
    cpu = worker_cpu(results)
    sent = {name: int(w.get("sent", 0)) for name, w in results.workers.items()}
    per_cpu = sum(sent.values()) / max(1e-9, sum(cpu.values()))
    rates = ", ".join(f"{sent[n] / options.sat_seconds:.0f}/s" for n in sorted(sent))
    print(
        f"(b) {workers} worker(s): {sum(sent.values())} requests, per worker process {rates}; "
        f"{per_cpu:.0f} requests per worker CPU-second (CPU-s "
        f"{cpu})",
        flush=True,
    )
    return per_cpu


def saturate_child(spec: str) -> None:
    """``--saturate-child``: (b) for one worker count in this process, whichever kit
    ``PYTHONPATH`` gives it; the figure as the last line, JSON."""
    args = json.loads(spec)
    options = argparse.Namespace(sat_fleet=args["sat_fleet"], sat_seconds=args["sat_seconds"])
    profile = load_profile(Path(args["profile"]))
    per_cpu = saturate(profile, args["base_url"], args["workers"], options)
    print(json.dumps({"per_cpu": per_cpu}))


def saturate_kit(
    checkout: Path | None, profile_path: Path, base_url: str, workers: int,
    options: argparse.Namespace,
) -> float:  # fmt: skip
    """(b) run by ``checkout``'s kit (None: this one) in a child process started in an empty
    directory, so that neither checkout's working directory comes first on its path."""
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(checkout), env.get("PYTHONPATH", "")]).strip(
            os.pathsep
        )
    spec = json.dumps(
        {
            "profile": str(profile_path),
            "base_url": base_url,
            "workers": workers,
            "sat_fleet": options.sat_fleet,
            "sat_seconds": options.sat_seconds,
        }
    )
    with tempfile.TemporaryDirectory(prefix="bench-load-kit-") as folder:
        result = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--saturate-child", spec],
            capture_output=True, text=True, check=False, env=env, cwd=folder,
        )  # fmt: skip
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise SystemExit(f"(b) failed in a child: {result.stderr.strip()[-500:]}")
    for line in lines[:-1]:
        print(f"    {line}", flush=True)
    return float(json.loads(lines[-1])["per_cpu"])


def compare(profile_path: Path, base_url: str, options: argparse.Namespace) -> None:
    """(b) for this checkout and ``--baseline``, interleaved over ``--rounds``; medians, ratios."""
    baseline = options.baseline.resolve()
    kits: list[tuple[str, Path | None]] = [("before", baseline), ("after", None)]
    figures: dict[tuple[str, int], list[float]] = {}
    for number in range(1, options.rounds + 1):
        order = kits if number % 2 else list(reversed(kits))
        for workers in (1, 2):
            for name, checkout in order:
                load = os.getloadavg()[0]
                per_cpu = saturate_kit(checkout, profile_path, base_url, workers, options)
                figures.setdefault((name, workers), []).append(per_cpu)
                print(
                    f"round {number} {name:6} {workers} worker(s): {per_cpu:6.0f} requests per "
                    f"worker CPU-second, load average {load:.2f}",
                    flush=True,
                )
    print()
    for workers in (1, 2):
        before = statistics.median(figures[("before", workers)])
        after = statistics.median(figures[("after", workers)])
        print(
            f"(b) {workers} worker(s), median of {options.rounds}: before {before:.0f}, after "
            f"{after:.0f} requests per worker CPU-second; after / before {after / before:.2f}"
        )
    for name, _ in kits:
        one = statistics.median(figures[(name, 1)])
        two = statistics.median(figures[(name, 2)])
        print(f"(b) scaling {name}: two workers / one = {two / one:.2f} (target >= 0.85)")


def wrk(base_url: str, headers: dict[str, str]) -> None:
    if shutil.which("wrk") is None:
        print("(c) wrk: not installed (apt-get install -y wrk)")
        return
    args = ["wrk", "-t1", "-c64", "-d5s"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run(
        [*args, f"{base_url}/sdk/v2/status"], capture_output=True, text=True, check=False
    ).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", out)
    print(f"(c) wrk -t1 -c64 on the same 304 poll: {found.group(1) if found else '?'} req/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleet", type=int, default=50_000)
    parser.add_argument("--cadence", type=float, default=30.0)
    parser.add_argument("--hold", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sat-fleet", type=int, default=1000)
    parser.add_argument("--sat-seconds", type=float, default=12.0)
    parser.add_argument("--skip-fleet", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--target", choices=["bare", "refserver"], default="bare")
    parser.add_argument("--baseline", type=Path, help="another checkout, (b) run beside this one")
    parser.add_argument("--rounds", type=int, default=3, help="(b) rounds with --baseline")
    parser.add_argument("--serve-bare", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--saturate-child", default="", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve_bare:
        serve_bare(options.serve_bare)
        return
    if options.saturate_child:
        saturate_child(options.saturate_child)
        return
    if options.baseline is not None and not (options.baseline / "conformance").is_dir():
        parser.error(f"--baseline {options.baseline}: no conformance package there")
    print(f"machine before: {uptime()}")
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    # A rate limit no instance reaches: the benchmark measures the generator, not the buckets.
    server = start_server(
        workdir / "ref.db", port=0, rate_burst=10**6, rate_refill=10**6, shed_threshold=10**9
    )
    base_url = str(server.base_url).rstrip("/")
    profile = load_profile(server.profile_path)  # credentials and header names for the plan
    bare = None
    if options.target == "bare":
        bare, base_url = start_bare()
    print(f"target: {options.target}")
    try:
        if not options.skip_fleet:
            fleet_case(profile, base_url, options)
        if not options.skip_scaling and options.baseline is not None:
            compare(server.profile_path, base_url, options)
        elif not options.skip_scaling:
            one = saturate(profile, base_url, 1, options)
            two = saturate(profile, base_url, 2, options)
            print(f"(b) scaling: two workers / one = {two / one:.2f} (target >= 0.85)")
        key = profile.key_for("development")
        assert key is not None
        headers = {"authorization": key.key, profile.headers.environment: "development"}
        current = httpx.get(f"{base_url}/sdk/v2/status", headers=headers).headers.get("etag", "")
        wrk(base_url, {**headers, profile.headers.instance_id: "wrk", "If-None-Match": current})
    finally:
        if bare is not None:
            bare.terminate()
            bare.wait(timeout=10)
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"machine after: {uptime()}")


if __name__ == "__main__":
    main()
