"""Throughput of the reference server's SDK paths on 127.0.0.1: status (wrk) and per-unit bootstrap.

Status (``--only status``): the reference server and a bare Starlette app, each in its own
process (one uvicorn server, one event loop), both on the same uvicorn configuration and HTTP
stack (``--stack fast``: httptools + uvloop, the default; ``--stack plain``: h11 + asyncio), are
loaded in turn by wrk, rounds interleaved, medians reported:

(a) refserver status 304 (If-None-Match matches, 1 configuration) against a bare endpoint that
    always answers a fixed 304 to the same request headers: target ratio >= 0.7;
(b) the same 304 for an environment with 1000 configurations against 1: target >= 0.9;
(b') status 200 with 1000 configurations against 1, beside the bare app sending the very same
     two bodies as fixed bytes (the ceiling the HTTP stack itself allows): shown, not judged
     (it was judged >= 0.9 on h11; on httptools the 114 KB body is most of the cost, and the
     bare app's own ratio is itself at or under 0.9).

Each case gets two figures: wall-clock req/s as wrk reports them, and requests per CPU-second of
the server's process (read from /proc). Targets are judged on the CPU ratio: on a shared
2-core machine the wall figures move with whatever else runs (wrk included); they are printed
beside it. ``--profile`` then runs py-spy on the reference server during one more 304 run and
prints the frames with the most samples. See benchmarks/README.md.

Per-unit bootstrap (``--only bootstrap``): a running weightedHash experiment with 3 groups, then
``--units`` bootstraps with distinct ``unit-id`` values over 8 keep-alive streams (real HTTP, sent
from a child process as the suite's bucketing scenario sends them), as units/s for (c) new units
(first call: the assignment is persisted) and (d) the same units again (already assigned), (c')
and (d') the same with a ``unit-context`` header (as the suite sends: its property names are
recorded on every call, so every call writes), beside (e) as many bare status polls as the ratio
base. Best of ``--rounds``; the server runs in this process.

Usage: python benchmarks/bench_refserver.py [--only status|bootstrap] [--duration 5]
       [--connections 50] [--wrk-rounds 2] [--stack fast|plain] [--profile]
       [--rounds 3] [--units 3000] [--streams 8]
Needs ``wrk`` on PATH for the status part (apt-get install -y wrk). Never sends traffic beyond
127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from bootstrap_units import bench_bootstrap
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from refserver.configurations import NewConfiguration, insert_configuration
from refserver.http_stack import FAST, PLAIN, HttpStack, choose
from refserver.provisioning import access_token, sdk_key
from refserver.runner import RunningServer, bind_socket, start_server, url_of, uvicorn_config

# ---------------------------------------------------------------- status (wrk)

LARGE = 1000
FIXED_ETAG = '"0123456789abcdef"'
LABELS = {
    "bare": "(a) bare Starlette, fixed 304",
    "304x1": "(a) refserver 304, 1 configuration",
    f"304x{LARGE}": f"(b) refserver 304, {LARGE} configurations",
    "200x1": "(b') status 200, 1 configuration",
    f"200x{LARGE}": f"(b') status 200, {LARGE} configurations",
    "bare-small": "    bare app, 1-config body",
    "bare-large": f"    bare app, {LARGE}-config body",
}
# ratio label -> (numerator case, denominator case, target or None)
RATIOS: dict[str, tuple[str, str, float | None]] = {
    "(a) 304 / bare 304": ("304x1", "bare", 0.7),
    f"(b) 304, {LARGE} / 1 configurations": (f"304x{LARGE}", "304x1", 0.9),
    f"(b') 200, {LARGE} / 1 configurations": (f"200x{LARGE}", "200x1", None),
    "    bare app, same bodies": ("bare-large", "bare-small", None),
}


def stack_named(name: str) -> HttpStack:
    """``fast`` (httptools + uvloop, which must be installed) or ``plain`` (h11 + asyncio)."""
    if name == "plain":
        return PLAIN
    if choose() != FAST:
        raise SystemExit("the fast stack needs uvloop and httptools: pip install '.[fast]'")
    return FAST


async def fixed_304(request: Request) -> Response:
    return Response(status_code=304, headers={"etag": FIXED_ETAG})


class FixedBody:
    """A bare endpoint answering 200 with fixed bytes."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def endpoint(self, request: Request) -> Response:
        return Response(self.body, media_type="application/json", headers={"etag": '"x"'})


def populate(server: RunningServer, pat: str, environment_id: int, count: int) -> None:
    """Create ``count`` small configurations: the first through the API, the rest in one
    transaction through the same insert function (one fsync instead of ``count``)."""
    headers = {"authorization": f"Bearer {pat}", "environment_id": str(environment_id)}
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        response = client.post(
            "/application/1/v2/configuration",
            json={"name": "c0", "configuration": {"value": 0, "enabled": True}},
            headers=headers,
        )
        response.raise_for_status()
    with server.state.store.write() as conn:
        for n in range(1, count):
            document = {"value": n, "enabled": True}
            new = NewConfiguration(name=f"c{n}", alias=f"c{n}", document=document)
            insert_configuration(conn, 1, environment_id, new)


def serve_reference(stack: HttpStack, workdir: Path) -> dict[str, object]:
    """Child side: refserver (rate limit and shedding out of reach), ``development`` with 1
    configuration and ``production`` with LARGE; what the parent needs to aim wrk."""
    server = start_server(
        workdir / "bench.db",
        stack=stack,
        rate_burst=1_000_000_000,
        rate_refill=1_000_000_000.0,
        shed_threshold=1_000_000_000,
    )
    with server.state.store.read() as conn:
        pat = access_token(conn, "demo")
        key = sdk_key(conn, "all")[0]
    populate(server, pat, 1, 1)
    populate(server, pat, 2, LARGE)
    found: dict[str, object] = {"url": server.base_url, "key": key, "stack": str(server.stack)}
    for label, environment in (("small", "development"), ("large", "production")):
        answer = httpx.get(
            server.base_url + "/sdk/v2/status",
            headers={"authorization": key, "environment": environment},
        )
        answer.raise_for_status()
        (workdir / f"{label}.json").write_bytes(answer.content)
        found[f"hash_{label}"] = answer.json()["hash"]
    return found


def serve_bare(stack: HttpStack, workdir: Path) -> tuple[uvicorn.Server, dict[str, object]]:
    """Child side: the bare app on the same uvicorn configuration and kind of socket."""
    small = FixedBody((workdir / "small.json").read_bytes())
    large = FixedBody((workdir / "large.json").read_bytes())
    app = Starlette(
        routes=[
            Route("/sdk/v2/status", fixed_304),
            Route("/small", small.endpoint),
            Route("/large", large.endpoint),
        ]
    )
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn_config(app, stack=stack))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, {"url": url_of(sock), "stack": str(stack)}


def child(kind: str, stack_name: str, workdir: Path) -> int:
    """``--serve KIND``: one server in this process, its details on stdout, until stdin closes."""
    stack = stack_named(stack_name)
    if kind == "reference":
        details = serve_reference(stack, workdir)
    else:
        details = serve_bare(stack, workdir)[1]
    print(json.dumps({**details, "pid": os.getpid()}), flush=True)
    sys.stdin.read()
    return 0


class ServerProcess:
    """One server in its own process (one uvicorn server, one event loop thread)."""

    def __init__(self, kind: str, stack: str, workdir: Path) -> None:
        command = [sys.executable, __file__, "--serve", kind, "--stack", stack]
        self.process = subprocess.Popen(
            [*command, "--workdir", str(workdir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {kind} server did not start")
        self.details = json.loads(line)
        self.pid = int(self.details["pid"])

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server process so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@dataclass
class Run:
    """One wrk run against one case."""

    wall_rps: float  # requests per wall-clock second, as wrk reports
    cpu_rps: float  # requests per CPU-second of the server process (user + system)
    bad: int  # non-2xx/3xx responses


def wrk(url: str, headers: dict[str, str], server: ServerProcess, args: argparse.Namespace) -> Run:
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    cpu_before = server.cpu_seconds()
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    cpu = server.cpu_seconds() - cpu_before
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    total = re.search(r"(\d+) requests in", output)
    if rate is None or total is None:
        raise RuntimeError("wrk printed no request figures")
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return Run(
        float(rate.group(1)), int(total.group(1)) / cpu, int(errors.group(1)) if errors else 0
    )


def profile(server: ServerProcess, url: str, headers: dict[str, str], args: Any) -> None:
    """py-spy on the server process while wrk loads ``url``: the top frames by own samples."""
    raw = Path(tempfile.mkdtemp(prefix="bench-profile-")) / "stacks.txt"
    spy = subprocess.Popen(
        [
            *("py-spy", "record", "-p", str(server.pid), "-d", str(args.duration), "-r", "250"),
            *("-f", "raw", "-o", str(raw), "--nonblocking"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wrk(url, headers, server, args)
    spy.wait(timeout=60)
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        frames = stack.split(";")
        own[frames[-1]] = own.get(frames[-1], 0) + int(samples)
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + int(samples)
        total += int(samples)
    ours = {f: n for f, n in inclusive.items() if "refserver/" in f or "starlette/" in f}
    for title, counts in (("own time", own), ("refserver and starlette, inclusive", ours)):
        print(f"py-spy, {total} samples of the server process under the 304 case, {title}:")
        for frame, count in sorted(counts.items(), key=lambda item: -item[1])[:15]:
            print(f"  {100 * count / total:5.1f}%  {frame}")


def bench_status(args: argparse.Namespace) -> int:
    """Cases (a), (b) and (b') with wrk, rounds interleaved; 0 when the targets are met."""
    if shutil.which("wrk") is None:
        print("wrk is not installed: apt-get install -y wrk", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="bench-refserver-"))
    load_before = os.getloadavg()
    started = time.perf_counter()
    reference = ServerProcess("reference", args.stack, workdir)
    bare = ServerProcess("bare", args.stack, workdir)
    runs: dict[str, list[Run]] = {name: [] for name in LABELS}
    try:
        ref, key = reference.details, str(reference.details["key"])
        print(
            f"servers started, 1 + {LARGE} configurations, in "
            f"{time.perf_counter() - started:.1f}s; both on {ref['stack']}, one process each"
        )
        status_url = f"{ref['url']}/sdk/v2/status"
        small = {"authorization": key, "environment": "development"}
        large = {"authorization": key, "environment": "production"}
        cases = {  # name -> (server, url, headers); the bare 304 gets the same request headers
            "bare": (
                bare,
                f"{bare.details['url']}/sdk/v2/status",
                {**small, "if-none-match": FIXED_ETAG},
            ),
            "304x1": (reference, status_url, {**small, "if-none-match": f'"{ref["hash_small"]}"'}),
            f"304x{LARGE}": (
                reference,
                status_url,
                {**large, "if-none-match": f'"{ref["hash_large"]}"'},
            ),
            "200x1": (reference, status_url, small),
            f"200x{LARGE}": (reference, status_url, large),
            "bare-small": (bare, f"{bare.details['url']}/small", {}),
            "bare-large": (bare, f"{bare.details['url']}/large", {}),
        }
        for _ in range(args.wrk_rounds):  # interleaved: background load hits every case alike
            for name, (server, url, headers) in cases.items():
                runs[name].append(wrk(url, headers, server, args))
        if args.profile:
            server, url, headers = cases["304x1"]
            profile(server, url, headers, args)
    finally:
        bare.stop()
        reference.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    load_after = os.getloadavg()

    print(
        f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s on 127.0.0.1, median of "
        f"{args.wrk_rounds} interleaved rounds; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after"
    )
    print(f"{'case':38} {'wall req/s':>11} {'req/CPU-s':>11} {'bad':>5}")
    wall = {name: statistics.median(r.wall_rps for r in rs) for name, rs in runs.items()}
    cpu = {name: statistics.median(r.cpu_rps for r in rs) for name, rs in runs.items()}
    for name, label in LABELS.items():
        each = "/".join(f"{r.wall_rps:.0f}" for r in runs[name])
        bad = sum(r.bad for r in runs[name])
        print(f"{label:38} {wall[name]:11.0f} {cpu[name]:11.0f} {bad:5d}   ({each})")
    met = True
    for label, (numerator, denominator, target) in RATIOS.items():
        by_wall = wall[numerator] / wall[denominator]
        by_cpu = cpu[numerator] / cpu[denominator]
        ok = by_cpu >= target if target else True
        met = met and ok
        goal = f"target >= {target} ({'met' if ok else 'NOT met'})" if target else "reference"
        print(f"ratio {label:32} {by_wall:11.2f} {by_cpu:11.2f}   {goal}")
    errors = sum(r.bad for rs in runs.values() for r in rs)
    print("targets met" if met and not errors else "targets NOT met (or errors seen)")
    return 0 if met and not errors else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("status", "bootstrap"), help="one part only")
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=50, help="wrk connections")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--wrk-rounds", type=int, default=2, help="interleaved; medians count")
    parser.add_argument("--stack", choices=("fast", "plain"), default="fast", help="both servers")
    parser.add_argument("--profile", action="store_true", help="py-spy the 304 path afterwards")
    parser.add_argument("--rounds", type=int, default=3, help="bootstrap rounds; best counts")
    parser.add_argument("--units", type=int, default=3000, help="bootstraps per case")
    parser.add_argument("--streams", type=int, default=8, help="parallel bootstrap streams")
    parser.add_argument("--serve", choices=("reference", "bare"), help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:  # a child process of ServerProcess
        return child(args.serve, args.stack, args.workdir)
    bootstrap_ok = True
    if args.only != "status":
        bootstrap_ok = bench_bootstrap(args)
        if args.only == "bootstrap":
            return 0 if bootstrap_ok else 1
        print()
    return bench_status(args) if bootstrap_ok else 1


if __name__ == "__main__":
    sys.exit(main())
