"""The latency proxy: answers pass unchanged, each exchange ``delay`` later, keep-alive kept.

Real sockets: the reference server on loopback, the proxy in its own process, httpx in front.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from refserver.runner import start_server
from tests.support.latency_proxy import LatencyProxy
from tests.support.ports import free_port

DELAY_MS = 80


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    running = start_server(Path(tmp_path_factory.mktemp("proxy")) / "ref.db", port=0)
    try:
        yield running
    finally:
        running.stop()


def status_headers(server: Any) -> dict[str, str]:
    from conformance.profile import load

    key = load(server.profile_path).credentials.sdk_keys[0]
    return {"authorization": key.key, "environment": key.environments[0], "server-id": "proxy-1"}


def timed_gets(base_url: str, headers: dict[str, str], count: int) -> list[tuple[float, Any]]:
    """``count`` status polls on one keep-alive connection: (seconds, response) each."""
    out = []
    with httpx.Client(base_url=base_url, timeout=10) as http:
        for _ in range(count):
            started = time.perf_counter()
            response = http.get("/sdk/v2/status", headers=headers)
            out.append((time.perf_counter() - started, response))
    return out


def test_a_plain_proxy_changes_nothing_but_the_address(server: Any) -> None:
    headers = status_headers(server)
    direct = timed_gets(str(server.base_url), headers, 1)[0][1]
    with LatencyProxy(str(server.base_url), 0) as proxy:
        assert proxy.base_url != str(server.base_url).rstrip("/")
        relayed = timed_gets(proxy.base_url, headers, 1)[0][1]
        boot = httpx.get(f"{proxy.base_url}/sdk/v2/bootstrap", headers=headers, timeout=10)
        refused = httpx.get(f"{proxy.base_url}/sdk/v2/status", timeout=10)
    assert relayed.status_code == direct.status_code == 200
    assert relayed.json()["hash"] == direct.json()["hash"]
    assert relayed.headers["etag"] == direct.headers["etag"]
    same = httpx.get(f"{str(server.base_url).rstrip('/')}/sdk/v2/bootstrap", headers=headers)
    assert boot.status_code == same.status_code == 200
    assert boot.content == same.content
    assert refused.status_code in (401, 403)


def test_every_exchange_costs_the_delay_keep_alive_included(server: Any) -> None:
    headers = status_headers(server)
    with LatencyProxy(str(server.base_url), DELAY_MS) as proxy:
        times = timed_gets(proxy.base_url, headers, 4)
    seconds = [t for t, _ in times]
    assert all(r.status_code == 200 for _, r in times)
    assert min(seconds) >= DELAY_MS / 1000, seconds
    # the first pays the handshake's round trip too; the others reuse the connection
    assert seconds[0] >= 2 * DELAY_MS / 1000, seconds
    assert min(seconds[1:]) < 2 * DELAY_MS / 1000, seconds


def test_a_dead_upstream_closes_the_client_connection(closed_port: str) -> None:
    with LatencyProxy(closed_port, 0) as proxy, pytest.raises(httpx.TransportError):
        httpx.get(f"{proxy.base_url}/sdk/v2/status", timeout=5)


@pytest.fixture
def closed_port() -> str:
    return f"http://127.0.0.1:{free_port()}"


def test_a_rate_cap_spreads_a_burst_over_time(server: Any) -> None:
    """20 polls at once through a cap of 10 a second: answered at least 0.1 s apart each (0.09
    with rounding); without the cap, together."""
    headers = status_headers(server)
    with LatencyProxy(str(server.base_url), 0, max_per_second=10) as capped:
        assert min(_answer_gaps(capped.base_url, headers, 20)) >= 0.09
    with LatencyProxy(str(server.base_url), 0) as plain:
        assert min(_answer_gaps(plain.base_url, headers, 20)) < 0.09


def test_a_concurrency_cap_queues_past_n_answers(server: Any) -> None:
    """20 polls at once, one outstanding at a time: their answers come one by one, each at
    least the answer's half of the 80 ms after the one before; without the cap, together."""
    headers = status_headers(server)
    with LatencyProxy(str(server.base_url), DELAY_MS, max_concurrent=1) as capped:
        gaps = _answer_gaps(capped.base_url, headers, 20)
    assert min(gaps) >= DELAY_MS / 2000 * 0.9
    with LatencyProxy(str(server.base_url), DELAY_MS) as plain:
        assert min(_answer_gaps(plain.base_url, headers, 20)) < DELAY_MS / 2000 * 0.9


def _answer_gaps(base_url: str, headers: dict[str, str], count: int) -> list[float]:
    """``count`` polls at once on connections opened beforehand: seconds between answers."""
    clients = [httpx.Client(base_url=base_url, timeout=30) for _ in range(count)]
    ready = threading.Barrier(count)

    def one(n: int) -> float:
        clients[n].get("/sdk/v2/status", headers={**headers, "server-id": f"gap-{n}"})
        ready.wait()
        clients[n].get("/sdk/v2/status", headers={**headers, "server-id": f"gap-{n}"})
        return time.perf_counter()

    try:
        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            done = sorted(pool.map(one, range(count)))
    finally:
        for client in clients:
            client.close()
    return [b - a for a, b in itertools.pairwise(done)]
