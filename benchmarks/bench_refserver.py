"""Throughput of the reference server's SDK paths on 127.0.0.1: status (wrk) and per-unit bootstrap.

Status (``--only status``) compares, in one run and on the same uvicorn configuration:

(a) status 304 (If-None-Match matches) against a bare Starlette endpoint that always answers a
    fixed 304: target ratio >= 0.7;
(b) status 200 for an environment with 1 configuration against one with 1000: target ratio
    >= 0.9 (the snapshot is computed on write, so the read path does not grow with it).

Targets are judged on requests per CPU-second of this process (robust to other load on the
machine); wall-clock req/s are printed beside them. See benchmarks/README.md.

Per-unit bootstrap (``--only bootstrap``): a running weightedHash experiment with 3 groups, then
``--units`` bootstraps with distinct ``unit-id`` values over 8 keep-alive streams (real HTTP, sent
from a child process as the suite's bucketing scenario sends them), as units/s for (c) new units
(first call: the assignment is persisted) and (d) the same units again (already assigned), (c')
and (d') the same with a ``unit-context`` header (as the suite sends: its property names are
recorded on every call, so every call writes), beside (e) as many bare status polls as the ratio
base.

Usage: python benchmarks/bench_refserver.py [--only status|bootstrap] [--duration 5] [--rounds 3]
       [--connections 16] [--units 3000] [--streams 8]
Needs ``wrk`` on PATH for the status part (apt-get install -y wrk). Never sends traffic beyond
127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from refserver.configurations import NewConfiguration, insert_configuration
from refserver.provisioning import access_token, sdk_key
from refserver.runner import RunningServer, bind_socket, start_server, url_of, uvicorn_config

LARGE = 1000
LABELS = {
    "bare": "(a) bare Starlette, fixed 304",
    "304": "(a) refserver status 304",
    "200x1": "(b) status 200, 1 configuration",
    f"200x{LARGE}": f"(b) status 200, {LARGE} configurations",
    "bare-small": "    bare app, 1-config body",
    "bare-large": f"    bare app, {LARGE}-config body",
}
# ratio label -> (numerator case, denominator case, target or None); judged per CPU-second
RATIOS: dict[str, tuple[str, str, float | None]] = {
    "(a) 304 / bare": ("304", "bare", 0.7),
    f"(b) {LARGE} / 1 configurations": (f"200x{LARGE}", "200x1", 0.9),
    "    bare app, same bodies": ("bare-large", "bare-small", None),
}


async def fixed_304(request: Request) -> Response:
    return Response(status_code=304, headers={"etag": '"0123456789abcdef"'})


class FixedBody:
    """A bare endpoint answering 200 with fixed bytes (set once the sizes are known)."""

    def __init__(self) -> None:
        self.body = b"{}"

    async def endpoint(self, request: Request) -> Response:
        return Response(self.body, media_type="application/json", headers={"etag": '"x"'})


class BareServer:
    """A bare Starlette app on the same uvicorn configuration the reference server uses."""

    def __init__(self) -> None:
        import threading

        import uvicorn

        self.small, self.large = FixedBody(), FixedBody()
        app = Starlette(
            routes=[
                Route("/sdk/v2/status", fixed_304),
                Route("/small", self.small.endpoint),
                Route("/large", self.large.endpoint),
            ]
        )
        self.sock = bind_socket("127.0.0.1", 0)
        self.base_url = url_of(self.sock)
        self.server = uvicorn.Server(uvicorn_config(app))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join()
        self.sock.close()


@dataclass
class Measurement:
    """Best figures of one case over the rounds."""

    wall_rps: float = 0.0  # requests per wall-clock second, as wrk reports
    cpu_rps: float = 0.0  # requests per second of this process's CPU (user + system)
    bad: int = 0  # non-2xx/3xx responses seen


def wrk(url: str, headers: dict[str, str], args: argparse.Namespace) -> tuple[float, float, int]:
    """(wall req/s, req per server CPU-second, non-2xx/3xx count) of one wrk run.

    Both servers run in this process and only the one under load is busy, so this process's
    CPU time during the run is the server's cost, whatever else the machine is doing.
    """
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    cpu_before = time.process_time()
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    cpu = time.process_time() - cpu_before
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    total = re.search(r"(\d+) requests in", output)
    if rate is None or total is None:
        raise RuntimeError("wrk printed no request figures")
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return float(rate.group(1)), int(total.group(1)) / cpu, int(errors.group(1)) if errors else 0


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


# ---------------------------------------------------------------- per-unit bootstrap

BOOTSTRAP_LABELS = {
    "new": "(c) bootstrap, new units",
    "repeat": "(d) bootstrap, repeat units",
    "new-context": "(c') new units, with unit-context",
    "repeat-context": "(d') repeat units, with unit-context",
    "status": "(e) status poll (base)",
}
CONTEXT = '{"bench-gate":true}'  # as the suite sends it: every identity carries a context
SHARES = (5000, 3000, 2000)


def send_all(spec: dict[str, object]) -> dict[str, object]:
    """Child process side: GET every request of ``spec`` over ``streams`` keep-alive clients.

    ``spec``: base_url, path, headers (shared), unit_ids (one request each; empty list: ``count``
    requests without identity), streams. Answers the wall seconds and the status counts."""
    base_url, path = str(spec["base_url"]), str(spec["path"])
    headers = dict(spec["headers"])  # type: ignore[call-overload]
    units: list[str | None] = list(spec["unit_ids"]) or [None] * int(spec["count"])  # type: ignore[call-overload]
    streams = int(spec["streams"])  # type: ignore[call-overload]
    statuses: list[int] = [0] * len(units)

    def stream(offset: int) -> None:
        with httpx.Client(base_url=base_url, timeout=60) as http:
            for index in range(offset, len(units), streams):
                unit = units[index]
                sent = headers if unit is None else {**headers, "unit-id": unit}
                statuses[index] = http.get(path, headers=sent).status_code

    threads = [threading.Thread(target=stream, args=(n,)) for n in range(streams)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    counts: dict[str, int] = {}
    for status in statuses:
        counts[str(status)] = counts.get(str(status), 0) + 1
    return {"seconds": wall, "statuses": counts}


def run_client(spec: dict[str, object]) -> tuple[float, float, int]:
    """(units/s wall, units per server CPU-second, non-200 count) of one batch sent by a child."""
    count = len(spec["unit_ids"]) or int(spec["count"])  # type: ignore[arg-type, call-overload]
    cpu_before = time.process_time()
    done = subprocess.run(
        [sys.executable, __file__, "--client"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
    )
    cpu = time.process_time() - cpu_before
    result = json.loads(done.stdout)
    bad = sum(n for status, n in result["statuses"].items() if status != "200")
    return count / result["seconds"], count / cpu, bad


def start_experiment(server: RunningServer, pat: str) -> None:
    """A configuration and a running weightedHash experiment with 3 groups (development)."""
    headers = {"authorization": f"Bearer {pat}", "environment_id": "1"}
    with httpx.Client(base_url=server.base_url, timeout=30, headers=headers) as client:
        created = client.post(
            "/application/1/v2/configuration",
            json={"name": "game", "configuration": {"bucket": {"group": "base"}, "coins": 100}},
        )
        created.raise_for_status()
        groups = [
            {
                "label": f"g{n}",
                "weight": weight,
                "changeset": [{"op": "set", "path": ["bucket", "group"], "value": f"g{n}"}],
            }
            for n, weight in enumerate(SHARES)
        ]
        experiment = client.post(
            "/application/1/v2/experiments",
            json={
                "name": "split",
                "unitType": "user",
                "baseConfigurationId": created.json()["id"],
                "groups": groups,
            },
        )
        experiment.raise_for_status()


def bench_bootstrap(args: argparse.Namespace) -> bool:
    """Cases (c), (d), (e); True when every answer was a 200."""
    workdir = Path(tempfile.mkdtemp(prefix="bench-refserver-"))
    server = start_server(
        workdir / "bench.db",
        rate_burst=1_000_000_000,
        rate_refill=1_000_000_000.0,
        shed_threshold=1_000_000_000,
    )
    best = {name: Measurement() for name in BOOTSTRAP_LABELS}
    try:
        with server.state.store.read() as conn:
            pat = access_token(conn, "demo")
            key = sdk_key(conn, "all")[0]
        start_experiment(server, pat)
        headers = {"authorization": key, "environment": "development"}
        for round_number in range(args.rounds):
            units = [f"bench-{round_number}-{n}" for n in range(args.units)]
            common = {"base_url": server.base_url, "headers": headers, "streams": args.streams}
            with_context = {**common, "headers": {**headers, "unit-context": CONTEXT}}
            others = [f"bench-context-{round_number}-{n}" for n in range(args.units)]
            specs = {
                "new": {**common, "path": "/sdk/v2/bootstrap", "unit_ids": units},
                "repeat": {**common, "path": "/sdk/v2/bootstrap", "unit_ids": units},
                "new-context": {**with_context, "path": "/sdk/v2/bootstrap", "unit_ids": others},
                "repeat-context": {**with_context, "path": "/sdk/v2/bootstrap", "unit_ids": others},
                "status": {**common, "path": "/sdk/v2/status", "unit_ids": [], "count": args.units},
            }
            for name, spec in specs.items():
                wall, cpu, bad = run_client(spec)
                m = best[name]
                m.wall_rps, m.cpu_rps, m.bad = (
                    max(m.wall_rps, wall),
                    max(m.cpu_rps, cpu),
                    m.bad + bad,
                )
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    print(
        f"{args.units} units over {args.streams} streams (httpx, child process), best of "
        f"{args.rounds} rounds, new units each round"
    )
    print(f"{'case':34} {'wall units/s':>12} {'units/CPU-s':>12} {'bad':>5}")
    for name, label in BOOTSTRAP_LABELS.items():
        m = best[name]
        print(f"{label:34} {m.wall_rps:12.0f} {m.cpu_rps:12.0f} {m.bad:5d}")
    base = best["status"]
    for name in ("new", "repeat", "new-context", "repeat-context"):
        m = best[name]
        label = f"{name} / status"
        print(
            f"ratio {label:28} {m.wall_rps / base.wall_rps:12.2f} {m.cpu_rps / base.cpu_rps:12.2f}"
        )
    return sum(m.bad for m in best.values()) == 0


# ---------------------------------------------------------------- status (wrk)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("status", "bootstrap"), help="one part only")
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; best counts")
    parser.add_argument("--units", type=int, default=3000, help="bootstraps per case")
    parser.add_argument("--streams", type=int, default=8, help="parallel bootstrap streams")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:  # the child process of run_client
        print(json.dumps(send_all(json.loads(sys.stdin.read()))))
        return 0
    bootstrap_ok = True
    if args.only != "status":
        bootstrap_ok = bench_bootstrap(args)
        if args.only == "bootstrap":
            return 0 if bootstrap_ok else 1
        print()
    return bench_status(args) if bootstrap_ok else 1


def bench_status(args: argparse.Namespace) -> int:
    """Cases (a) and (b) with wrk; 0 when the targets are met."""
    if shutil.which("wrk") is None:
        print("wrk is not installed: apt-get install -y wrk", file=sys.stderr)
        return 2

    workdir = Path(tempfile.mkdtemp(prefix="bench-refserver-"))
    server = start_server(
        workdir / "bench.db",
        rate_burst=1_000_000_000,
        rate_refill=1_000_000_000.0,
        shed_threshold=1_000_000_000,
    )
    bare = BareServer()
    try:
        with server.state.store.read() as conn:
            pat = access_token(conn, "demo")
            key = sdk_key(conn, "all")[0]
        started = time.perf_counter()
        populate(server, pat, 1, 1)
        populate(server, pat, 2, LARGE)
        print(f"populated 1 + {LARGE} configurations in {time.perf_counter() - started:.1f}s")

        status_url = server.base_url + "/sdk/v2/status"
        small = {"authorization": key, "environment": "development"}
        large = {"authorization": key, "environment": "production"}
        current = httpx.get(status_url, headers=small).json()["hash"]
        bare.small.body = httpx.get(status_url, headers=small).content
        bare.large.body = httpx.get(status_url, headers=large).content
        large_size = len(bare.large.body)

        cases = {
            "bare": (bare.base_url + "/sdk/v2/status", {"if-none-match": '"x"'}),
            "304": (status_url, {**small, "if-none-match": f'"{current}"'}),
            "200x1": (status_url, small),
            f"200x{LARGE}": (status_url, large),
            "bare-small": (bare.base_url + "/small", {}),
            "bare-large": (bare.base_url + "/large", {}),
        }
        # Rounds interleave the cases so that background load hits them alike; best of rounds.
        best = {name: Measurement() for name in cases}
        for _ in range(args.rounds):
            for name, (url, headers) in cases.items():
                wall, cpu, bad = wrk(url, headers, args)
                m = best[name]
                m.wall_rps, m.cpu_rps, m.bad = (
                    max(m.wall_rps, wall),
                    max(m.cpu_rps, cpu),
                    m.bad + bad,
                )
    finally:
        bare.stop()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    print(
        f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s on 127.0.0.1, best of "
        f"{args.rounds} interleaved rounds; large body {large_size} bytes"
    )
    print(f"{'case':34} {'wall req/s':>11} {'req/CPU-s':>11} {'bad':>5}")
    for name, label in LABELS.items():
        m = best[name]
        print(f"{label:34} {m.wall_rps:11.0f} {m.cpu_rps:11.0f} {m.bad:5d}")
    met = True
    for label, (numerator, denominator, target) in RATIOS.items():
        wall = best[numerator].wall_rps / best[denominator].wall_rps
        cpu = best[numerator].cpu_rps / best[denominator].cpu_rps
        ok = cpu >= target if target else True
        met = met and ok
        goal = f"target >= {target} ({'met' if ok else 'NOT met'})" if target else "reference"
        print(f"ratio {label:28} {wall:11.2f} {cpu:11.2f}   {goal}")
    errors = sum(m.bad for m in best.values())
    print("targets met" if met and not errors else "targets NOT met (or errors seen)")
    return 0 if met and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
