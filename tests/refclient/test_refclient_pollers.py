"""Poller and AsyncPoller over httpx.MockTransport: the same script gives the same requests,
outcomes and waits in both flavours; run_forever, stop(), callbacks and permanent errors."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import Any

import httpx
import pytest

from refclient import AsyncPoller, Changes, Config, Outcome, PermanentError, Poller
from tests.refclient.bodies import KEY, bootstrap, entry, status

A1, B1, B2 = entry(1, "a1"), entry(2, "b1"), entry(2, "b2")

# (path, status, body or None, extra headers) answered in order
SCRIPT: list[tuple[str, int, Any, dict[str, str]]] = [
    ("/sdk/v2/status", 200, status("s1", A1, B1), {}),
    ("/sdk/v2/bootstrap", 200, bootstrap("s1", (A1, 1), (B1, 2)), {}),
    ("/sdk/v2/status", 304, None, {}),
    ("/sdk/v2/status", 503, {"errorCode": "UNAVAILABLE", "message": "busy"}, {}),
    ("/sdk/v2/status", 429, {"errorCode": "RATE_LIMITED", "message": "slow"}, {"retry-after": "7"}),
    ("/sdk/v2/status", 200, status("s2", A1, B2, polling={"intervalSeconds": 50}), {}),
    ("/sdk/v2/bootstrap", 200, bootstrap("s2", (A1, 1), (B2, 3)), {}),
    ("/sdk/v2/status", 304, None, {}),
    ("/sdk/v2/status", 200, status("s2", A1, B2), {}),
]


class Scripted:
    """A MockTransport handler that answers SCRIPT in order and records what it was sent."""

    def __init__(self, script: list[tuple[str, int, Any, dict[str, str]]]) -> None:
        self.script = list(script)
        self.seen: list[tuple[str, dict[str, str], str]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path, code, body, headers = self.script.pop(0)
        assert request.url.path == path
        self.seen.append((request.url.path, dict(request.headers), request.url.query.decode()))
        etag = {"etag": f'"{body["hash"]}"'} if isinstance(body, dict) and "hash" in body else {}
        content = b"" if body is None else json.dumps(body).encode()
        return httpx.Response(code, headers={**etag, **headers}, content=content)


def config(**overrides: Any) -> Config:
    fixed = iter([0.5] * 1000)
    settings: dict[str, Any] = {"instance_id": "srv-1", "random": lambda: next(fixed)}
    settings.update(overrides)
    return Config("http://rces.test", KEY, **settings)


def run_sync(handler: Scripted, polls: int) -> tuple[list[Outcome], list[Changes]]:
    changes: list[Changes] = []
    client = httpx.Client(base_url="http://rces.test", transport=httpx.MockTransport(handler))
    poller = Poller(config(), on_change=changes.append, client=client)
    outcomes = [poller.poll_once() for _ in range(polls)]
    client.close()
    return outcomes, changes


def run_async(handler: Scripted, polls: int) -> tuple[list[Outcome], list[Changes]]:
    changes: list[Changes] = []

    async def scenario() -> list[Outcome]:
        async def collect(change: Changes) -> None:
            changes.append(change)

        transport = httpx.MockTransport(handler)
        async with httpx.AsyncClient(base_url="http://rces.test", transport=transport) as client:
            poller = AsyncPoller(config(), on_change=collect, client=client)
            return [await poller.poll_once() for _ in range(polls)]

    return asyncio.run(scenario()), changes


def test_both_flavours_send_the_same_requests_and_choose_the_same_waits() -> None:
    sync_handler, async_handler = Scripted(SCRIPT), Scripted(SCRIPT)
    sync_outcomes, sync_changes = run_sync(sync_handler, 7)
    async_outcomes, async_changes = run_async(async_handler, 7)
    assert sync_handler.script == [] and async_handler.script == []

    def requests(handler: Scripted) -> list[tuple[str, str | None, str]]:
        return [(path, h.get("if-none-match"), query) for path, h, query in handler.seen]

    assert (
        requests(sync_handler)
        == requests(async_handler)
        == [
            ("/sdk/v2/status", None, ""),
            ("/sdk/v2/bootstrap", None, ""),
            ("/sdk/v2/status", '"s1"', ""),
            ("/sdk/v2/status", '"s1"', ""),
            ("/sdk/v2/status", '"s1"', ""),
            ("/sdk/v2/status", '"s1"', ""),
            ("/sdk/v2/bootstrap", None, ""),
            ("/sdk/v2/status", '"s2"', ""),
            ("/sdk/v2/status", '"s2"', ""),
        ]
    )
    assert sync_outcomes == async_outcomes
    assert [o.result for o in sync_outcomes] == [
        "changed",
        "not-modified",
        "failed",
        "failed",
        "changed",
        "not-modified",
        "unchanged",
    ]
    assert [round(o.delay, 6) for o in sync_outcomes] == [33.0, 33.0, 5.5, 11.0, 55.0, 55.0, 33.0]
    assert sync_changes == async_changes
    assert [[c.id for c in ch.updated] for ch in sync_changes] == [[1, 2], [2]]
    for _, headers, _ in sync_handler.seen:
        assert headers["authorization"] == KEY
        assert headers["server-id"] == "srv-1"
        assert headers["sdkversion"].startswith("refclient/")


def test_run_forever_sleeps_each_chosen_delay_until_stopped() -> None:
    handler = Scripted(SCRIPT)
    slept: list[float] = []
    client = httpx.Client(base_url="http://rces.test", transport=httpx.MockTransport(handler))
    poller: Poller

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 4:
            poller.stop()

    poller = Poller(config(sleep=sleep), client=client)
    poller.run_forever()
    assert [round(s, 6) for s in slept] == [33.0, 33.0, 5.5, 11.0]
    assert poller.stopped


def test_async_run_forever_sleeps_each_chosen_delay_until_stopped() -> None:
    handler = Scripted(SCRIPT)
    slept: list[float] = []

    async def scenario() -> None:
        poller: AsyncPoller

        async def sleep(seconds: float) -> None:
            slept.append(seconds)
            if len(slept) == 3:
                poller.stop()

        transport = httpx.MockTransport(handler)
        async with httpx.AsyncClient(base_url="http://rces.test", transport=transport) as client:
            poller = AsyncPoller(config(async_sleep=sleep), client=client)
            await poller.run_forever()

    asyncio.run(scenario())
    assert [round(s, 6) for s in slept] == [33.0, 33.0, 5.5]


def refusing(request: httpx.Request) -> httpx.Response:
    return httpx.Response(401, json={"errorCode": "INVALID_KEY", "message": "bad key"})


def test_permanent_error_stops_run_forever_and_reaches_the_caller(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = httpx.Client(base_url="http://rces.test", transport=httpx.MockTransport(refusing))
    poller = Poller(config(sleep=lambda s: pytest.fail("must not wait after a 401")), client=client)
    with caplog.at_level(logging.INFO, logger="refclient"), pytest.raises(PermanentError) as raised:
        poller.run_forever()
    assert raised.value.status == 401 and "INVALID_KEY" in str(raised.value)
    assert KEY not in caplog.text


def test_async_permanent_error_stops_run_forever() -> None:
    async def scenario() -> None:
        transport = httpx.MockTransport(refusing)
        async with httpx.AsyncClient(base_url="http://rces.test", transport=transport) as client:
            await AsyncPoller(config(), client=client).run_forever()

    with pytest.raises(PermanentError, match="401 INVALID_KEY"):
        asyncio.run(scenario())


def test_refused_connection_backs_off_and_is_logged_without_the_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = httpx.Client(base_url="http://rces.test", transport=httpx.MockTransport(refused))
    poller = Poller(config(), client=client)
    with caplog.at_level(logging.INFO, logger="refclient"):
        delays = [poller.poll_once().delay for _ in range(3)]
    assert [round(d, 6) for d in delays] == [5.5, 11.0, 22.0]
    assert "ConnectError" in caplog.text and KEY not in caplog.text


def test_a_failing_callback_is_logged_and_polling_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    def broken(changes: Changes) -> None:
        raise RuntimeError("game bug")

    client = httpx.Client(
        base_url="http://rces.test", transport=httpx.MockTransport(Scripted(SCRIPT))
    )
    poller = Poller(config(), on_change=broken, client=client)
    with caplog.at_level(logging.INFO, logger="refclient"):
        first = poller.poll_once()
        second = poller.poll_once()
    assert first.result == "changed" and second.result == "not-modified"
    assert "game bug" in caplog.text
    assert poller.current().hash == "s1"


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_stop_interrupts_the_default_wait(flavour: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=status("s0"))

    started = time.monotonic()
    if flavour == "sync":
        client = httpx.Client(base_url="http://rces.test", transport=httpx.MockTransport(handler))
        poller = Poller(config(), client=client)
        thread = threading.Thread(target=poller.run_forever)
        thread.start()
        time.sleep(0.2)
        poller.stop()
        thread.join(timeout=5)
        assert not thread.is_alive()
    else:

        async def scenario() -> None:
            transport = httpx.MockTransport(handler)
            async with httpx.AsyncClient(base_url="http://rces.test", transport=transport) as c:
                poller = AsyncPoller(config(), client=c)
                task = asyncio.create_task(poller.run_forever())
                await asyncio.sleep(0.2)
                poller.stop()
                await asyncio.wait_for(task, 5)

        asyncio.run(scenario())
    assert time.monotonic() - started < 5  # the chosen wait was 33 s
