"""Throughput of the reference server's SDK status path, measured with wrk on 127.0.0.1.

Compares, in one run and on the same uvicorn configuration:

(a) status 304 (If-None-Match matches) against a bare Starlette endpoint that always answers a
    fixed 304: target ratio >= 0.7;
(b) status 200 for an environment with 1 configuration against one with 1000: target ratio
    >= 0.9 (the snapshot is computed on write, so the read path does not grow with it).

Usage: python benchmarks/bench_refserver.py [--duration 5] [--connections 16] [--threads 1]
Needs ``wrk`` on PATH (apt-get install -y wrk). Never sends traffic beyond 127.0.0.1.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
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
TARGET_304 = 0.7
TARGET_SCALE = 0.9


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


def wrk(
    url: str, headers: dict[str, str], args: argparse.Namespace
) -> tuple[float, dict[str, int]]:
    """Requests per second and the status counts wrk saw (non-2xx/3xx are reported)."""
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    if rate is None:
        raise RuntimeError("wrk printed no Requests/sec")
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    return float(rate.group(1)), {"non_2xx_3xx": int(errors.group(1)) if errors else 0}


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; best counts")
    args = parser.parse_args()
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
        best: dict[str, float] = dict.fromkeys(cases, 0.0)
        errors: dict[str, int] = dict.fromkeys(cases, 0)
        for _ in range(args.rounds):
            for name, (url, headers) in cases.items():
                rps, seen = wrk(url, headers, args)
                best[name] = max(best[name], rps)
                errors[name] += seen["non_2xx_3xx"]
        bare_rps, ref_304 = best["bare"], best["304"]
        one_200, many_200 = best["200x1"], best[f"200x{LARGE}"]
        e304, e1, e1000 = errors["304"], errors["200x1"], errors[f"200x{LARGE}"]
    finally:
        bare.stop()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    ratio_304 = ref_304 / bare_rps
    ratio_scale = many_200 / one_200
    print(
        f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s, 127.0.0.1, "
        f"best of {args.rounds} interleaved rounds"
    )
    print(f"(a) bare Starlette fixed 304      {bare_rps:10.0f} req/s")
    print(f"    refserver status 304          {ref_304:10.0f} req/s   non-2xx/3xx {e304}")
    print(f"    ratio                         {ratio_304:10.2f}       target >= {TARGET_304}")
    print(f"(b) status 200, 1 configuration   {one_200:10.0f} req/s   non-2xx/3xx {e1}")
    print(f"    status 200, {LARGE} configs      {many_200:10.0f} req/s   non-2xx/3xx {e1000}"
          f"   ({large_size} bytes)")  # fmt: skip
    print(f"    ratio                         {ratio_scale:10.2f}       target >= {TARGET_SCALE}")
    bare_scale = best["bare-large"] / best["bare-small"]
    print("    for scale: the bare app sending the same two bodies as fixed bytes")
    print(f"    bare 200, small body          {best['bare-small']:10.0f} req/s")
    print(f"    bare 200, large body          {best['bare-large']:10.0f} req/s")
    print(f"    ratio (the stack's ceiling)   {bare_scale:10.2f}")
    met = ratio_304 >= TARGET_304 and ratio_scale >= TARGET_SCALE
    print("targets met" if met else "targets NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
