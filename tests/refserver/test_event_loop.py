"""SDK requests never run SQLite on the event loop's thread, not even right after a write."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.refserver.conftest import Api

LOOP_THREAD = "refserver"  # refserver.runner names the thread that runs uvicorn's event loop


def test_sdk_reads_after_writes_stay_off_the_event_loop(
    make_api: Callable[..., Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = make_api()
    store = api.server.state.store
    threads: list[str] = []
    connect = store._connect

    def recording_connect() -> Any:
        threads.append(threading.current_thread().name)
        return connect()

    monkeypatch.setattr(store, "_connect", recording_connect)
    record = api.created(configuration={"v": 0})
    threads.clear()
    assert api.status(key="production", environment="production").status_code == 200  # first use
    for _ in range(3):
        bad = api.client.get("/sdk/v2/status", headers={"authorization": "svc_pk_unknown"})
        assert bad.status_code == 401
    assert threads and LOOP_THREAD not in threads, threads
    for n in range(1, 4):
        threads.clear()
        patched = api.patch(
            record["id"], {"operations": [{"op": "replace", "path": "/v", "value": n}]}
        )
        assert patched.status_code == 200, patched.text
        threads.clear()
        status = api.status()
        etag = status.headers["etag"]
        assert api.status(**{"if-none-match": etag}).status_code == 304
        assert api.bootstrap().headers["etag"] == etag
        assert api.bootstrap(**{"unit-id": f"u{n}"}).status_code == 200
        assert api.status(key="production", environment="production").status_code == 200
        assert threads, "the reads after the write did reach SQLite"
        assert LOOP_THREAD not in threads, threads
