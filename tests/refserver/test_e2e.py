"""End-to-end over real sockets: the whole flow, races, restarts, rate limit and shedding."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.refserver.conftest import Api, ServerFactory, api_for


def test_create_patch_status_304_both_ways_and_stale_409(make_api: Callable[..., Api]) -> None:
    api = make_api()
    record = api.created(name="Flow", configuration={"speed": 1})
    first = api.status()
    assert first.status_code == 200
    etag = first.headers["etag"]
    patched = api.patch(
        record["id"],
        {"operations": [{"op": "replace", "path": "/speed", "value": 2}],
         "baseHash": record["contentHash"]},
    )  # fmt: skip
    assert patched.status_code == 200
    second = api.status(**{"if-none-match": etag})
    assert second.status_code == 200 and second.headers["etag"] != etag
    entry = next(c for c in second.json()["configurations"] if c["id"] == record["id"])
    assert entry["hash"] == patched.json()["contentHash"]
    new_hash = second.json()["hash"]
    assert api.status(**{"if-none-match": second.headers["etag"]}).status_code == 304
    by_query = api.client.get(
        "/sdk/v2/status", params={"hash": new_hash}, headers={"authorization": api.keys["all"]}
    )
    assert by_query.status_code == 304 and by_query.content == b""
    stale = api.patch(
        record["id"],
        {"operations": [{"op": "replace", "path": "/speed", "value": 3}],
         "baseHash": record["contentHash"]},
    )  # fmt: skip
    assert stale.status_code == 409 and stale.json()["errorCode"] == "STALE_BASE_HASH"
    assert api.status(**{"if-none-match": second.headers["etag"]}).status_code == 304


def test_concurrent_patches_from_one_base_exactly_one_wins(make_api: Callable[..., Api]) -> None:
    api = make_api()
    record = api.created(configuration={"winner": None})
    writers = 8
    barrier = threading.Barrier(writers)

    def write(n: int) -> httpx.Response:
        with httpx.Client(base_url=api.server.base_url, timeout=30.0) as client:
            barrier.wait()
            return client.patch(
                f"/application/1/v2/configuration/{record['id']}",
                json={
                    "operations": [{"op": "replace", "path": "/winner", "value": n}],
                    "baseHash": record["contentHash"],
                },
                headers=api.pat_headers(),
            )

    with ThreadPoolExecutor(writers) as pool:
        responses = list(pool.map(write, range(writers)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * (writers - 1)
    winner = next(r for r in responses if r.status_code == 200).json()
    current = api.patch(record["id"], {}).json()
    assert current["configuration"] == winner["configuration"]
    assert current["contentHash"] == winner["contentHash"]


def test_concurrent_patches_without_base_lose_no_update(make_api: Callable[..., Api]) -> None:
    api = make_api()
    record = api.created(configuration={"items": []})

    def write(n: int) -> int:
        with httpx.Client(base_url=api.server.base_url, timeout=30.0) as client:
            return client.patch(
                f"/application/1/v2/configuration/{record['id']}",
                json={"operations": [{"op": "add", "path": "/items/-", "value": n}]},
                headers=api.pat_headers(),
            ).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(write, range(40))) == {200}
    items = api.patch(record["id"], {}).json()["configuration"]["items"]
    assert sorted(items) == list(range(40))


def test_restart_loses_nothing(make_server: ServerFactory, tmp_path: Path) -> None:
    db = tmp_path / "persist.db"
    first = make_server(db_path=db)
    api = api_for(first)
    record = api.created(name="Durable", configuration={"kept": True})
    patched = api.patch(record["id"], {"operations": [{"op": "add", "path": "/more", "value": 1}]})
    status = api.status().json()
    api.client.close()
    first.stop()
    second = make_server(db_path=db)
    again = api_for(second)
    assert (again.pat, again.keys) == (api.pat, api.keys)  # not provisioned twice
    assert again.patch(record["id"], {}).json() == patched.json()
    assert again.status().json() == status
    again.client.close()


def test_rate_limit_per_instance_and_shared_without_one(make_api: Callable[..., Api]) -> None:
    api = make_api(rate_burst=5, rate_refill=0.5)
    assert [api.status(**{"server-id": "a"}).status_code for _ in range(5)] == [200] * 5
    limited = api.status(**{"server-id": "a"})
    assert limited.status_code == 429
    assert limited.json()["errorCode"] == "RATE_LIMITED"
    assert int(limited.headers["retry-after"]) >= 1
    assert api.status(**{"server-id": "b"}).status_code == 200  # its own bucket
    assert api.status(key="development", **{"server-id": "a"}).status_code == 200  # per key
    # without server-id every caller from this IP shares one bucket
    assert [api.status().status_code for _ in range(5)] == [200] * 5
    with httpx.Client(base_url=api.server.base_url) as other_client:
        shared = other_client.get("/sdk/v2/status", headers={"authorization": api.keys["all"]})
    assert shared.status_code == 429


def test_rate_scope_instance_keeps_one_bucket_for_every_key(make_api: Callable[..., Api]) -> None:
    api = make_api(rate_burst=3, rate_refill=0.5, rate_scope="instance")
    assert [api.status(**{"server-id": "a"}).status_code for _ in range(3)] == [200] * 3
    assert api.status(key="development", **{"server-id": "a"}).status_code == 429  # any key
    assert api.status(**{"server-id": "b"}).status_code == 200  # another instance: its own
    # without server-id, every key from this IP spends one bucket
    assert [api.status().status_code for _ in range(3)] == [200] * 3
    assert api.status(key="development").status_code == 429


def test_forced_shedding_always_carries_polling(make_api: Callable[..., Api]) -> None:
    api = make_api(force_shedding=True)
    for response in (api.status(), api.bootstrap()):
        assert response.json()["polling"] == {"intervalSeconds": 30, "jitterRatio": 0.2}
        assert response.headers["etag"] == f'"{response.json()["hash"]}"'


def test_shedding_appears_under_load_and_goes_away(make_api: Callable[..., Api]) -> None:
    api = make_api(shed_threshold=20, rate_burst=10_000, rate_refill=10_000)
    assert "polling" not in api.status().json()
    quiet_hash = api.status().json()["hash"]
    for _ in range(400):  # more than 20 within one second, even on a busy machine
        body = api.status().json()
        if "polling" in body:
            break
    assert body["polling"] == {"intervalSeconds": 30, "jitterRatio": 0.2}
    assert body["hash"] == quiet_hash  # polling is not part of the hash
    time.sleep(1.2)
    assert "polling" not in api.status().json()
