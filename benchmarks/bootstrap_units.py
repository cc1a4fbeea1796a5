"""The per-unit bootstrap part of ``bench_refserver.py`` (``--only bootstrap``): units per second.

A running weightedHash experiment with 3 groups, then bootstraps with distinct ``unit-id`` values
sent over keep-alive streams from a child process (this module run as a script: the spec on
stdin, the figures on stdout), against bare status polls as the ratio base.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from refserver.provisioning import access_token, sdk_key
from refserver.runner import RunningServer, start_server

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
        [sys.executable, __file__],
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


@dataclass
class Measurement:
    """Best figures of one bootstrap case over the rounds."""

    wall_rps: float = 0.0  # requests per wall-clock second, as wrk reports
    cpu_rps: float = 0.0  # requests per second of this process's CPU (user + system)
    bad: int = 0  # non-2xx/3xx responses seen


if __name__ == "__main__":  # the child process of run_client
    print(json.dumps(send_all(json.loads(sys.stdin.read()))))
