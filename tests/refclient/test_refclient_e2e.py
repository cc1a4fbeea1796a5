"""refclient against the real reference server over real sockets: first poll 200, then 304 with
the hash sent, a PATCH refetches exactly that configuration; the hint, 429 and the bad key."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from refclient import AsyncPoller, Changes, Config, PermanentError, Poller
from refserver.runner import RunningServer, start_server
from tests.refserver.conftest import Api, api_for


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Api]:
    server = start_server(tmp_path / "rces.db", rate_burst=10_000, rate_refill=10_000)
    api = api_for(server)
    yield api
    api.client.close()
    server.stop()


def recording_client(server: RunningServer, log: list[httpx.Request]) -> httpx.Client:
    return httpx.Client(base_url=server.base_url, timeout=10, event_hooks={"request": [log.append]})


def config_for(api: Api, **overrides: Any) -> Config:
    settings: dict[str, Any] = {"instance_id": "e2e-1"}
    settings.update(overrides)
    return Config(api.server.base_url, api.keys["development"], **settings)


def replace(api: Api, configuration_id: int, path: str, value: Any) -> None:
    body = {"operations": [{"op": "replace", "path": path, "value": value}]}
    response = api.patch(configuration_id, body)
    assert response.status_code == 200, response.text


def test_first_200_then_304_then_a_patch_refetches_exactly_that_configuration(
    served: Api,
) -> None:
    economy = served.created({"coins": 10}, name="economy")
    levels = served.created({"max": 5}, name="levels")
    sent: list[httpx.Request] = []
    changes: list[Changes] = []
    client = recording_client(served.server, sent)
    poller = Poller(config_for(served), on_change=changes.append, client=client)

    first = poller.poll_once()
    assert first.status == 200 and first.result == "changed"
    assert [r.url.path for r in sent] == ["/sdk/v2/status", "/sdk/v2/bootstrap"]
    assert "if-none-match" not in sent[0].headers and sent[0].url.query == b""
    kept = poller.current().hash
    assert kept is not None
    assert poller.current().document("economy") == {"coins": 10}
    assert poller.current().document("levels") == {"max": 5}

    sent.clear()
    second = poller.poll_once()
    assert second.status == 304 and second.result == "not-modified"
    assert [r.url.path for r in sent] == ["/sdk/v2/status"]
    assert sent[0].headers["if-none-match"] == f'"{kept}"'
    assert sent[0].headers["server-id"] == "e2e-1"

    replace(served, levels["id"], "/max", 6)
    sent.clear()
    third = poller.poll_once()
    assert third.status == 200 and third.result == "changed"
    assert [r.url.path for r in sent] == ["/sdk/v2/status", "/sdk/v2/bootstrap"]
    assert sent[0].headers["if-none-match"] == f'"{kept}"'
    assert [c.id for c in changes[-1].updated] == [levels["id"]]
    assert changes[-1].removed == ()
    assert poller.current().document("levels") == {"max": 6}
    assert poller.current().configurations[economy["id"]].document == {"coins": 10}
    assert poller.current().hash != kept

    sent.clear()
    assert poller.poll_once().status == 304
    assert sent[0].headers["if-none-match"] == f'"{poller.current().hash}"'
    client.close()


def test_query_hash_transport_gets_304_from_the_reference_server(served: Api) -> None:
    served.created({"a": 1}, name="a")
    sent: list[httpx.Request] = []
    client = recording_client(served.server, sent)
    poller = Poller(config_for(served, hash_transport="query"), client=client)
    assert poller.poll_once().status == 200
    assert poller.poll_once().status == 304
    assert sent[-1].url.params["hash"] == poller.current().hash
    assert "if-none-match" not in sent[-1].headers
    client.close()


def test_async_poller_against_the_reference_server(served: Api) -> None:
    record = served.created({"speed": 1}, name="speed")

    async def scenario() -> list[str]:
        async with AsyncPoller(config_for(served)) as poller:
            results = [(await poller.poll_once()).result, (await poller.poll_once()).result]
            await asyncio.to_thread(replace, served, record["id"], "/speed", 2)
            results.append((await poller.poll_once()).result)
            assert poller.current().document("speed") == {"speed": 2}
            return results

    assert asyncio.run(scenario()) == ["changed", "not-modified", "changed"]


def test_shedding_hint_from_the_reference_server_sets_the_wait(tmp_path: Path) -> None:
    with start_server(tmp_path / "shed.db", force_shedding=True) as server:
        api = api_for(server)
        with Poller(config_for(api, time_scale=0.01)) as poller:
            outcome = poller.poll_once()
        api.client.close()
    assert outcome.hint is not None and outcome.hint.interval == 30
    assert 30.0 <= outcome.delay < 36.0  # the hint is not scaled; own cadence would be 0.3 s


def test_429_from_the_reference_server_waits_retry_after(tmp_path: Path) -> None:
    with start_server(tmp_path / "limited.db", rate_burst=1, rate_refill=0.01) as server:
        api = api_for(server)
        with Poller(config_for(api, time_scale=0.01)) as poller:
            assert poller.poll_once().status == 200
            throttled = poller.poll_once()
        api.client.close()
    assert throttled.status == 429 and throttled.result == "failed"
    assert throttled.delay >= 1.0  # Retry-After is whole seconds >= 1, never scaled


def test_bad_key_is_a_permanent_error_without_the_key(served: Api) -> None:
    bogus = "svc_pk_doesnotexist0000"
    poller = Poller(Config(served.server.base_url, bogus, instance_id="e2e-1"))
    with pytest.raises(PermanentError) as raised:
        poller.run_forever()
    poller.close()
    assert raised.value.status == 401
    assert bogus not in str(raised.value)


def test_scope_refusal_is_permanent(served: Api) -> None:
    poller = Poller(config_for(served, environment="production"))
    with pytest.raises(PermanentError, match="403 FORBIDDEN"):
        poller.poll_once()
    poller.close()
