"""refserver.runner and refserver.access_log: wrapping the app, stopping, logs without secrets."""

from __future__ import annotations

import logging
import time

import httpx
import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.refserver.conftest import ServerFactory, api_for


class Teapot:
    """A one-defect wrapper: answers 418 for the status endpoint."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/sdk/v2/status":
            await send({"type": "http.response.start", "status": 418, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await self.app(scope, receive, send)


def test_wrap_serves_the_wrapped_app(make_server: ServerFactory) -> None:
    server = make_server(wrap=Teapot)
    api = api_for(server)
    assert server.base_url.startswith("http://127.0.0.1:")
    assert api.status().status_code == 418
    assert api.bootstrap().status_code == 200
    api.client.close()


def test_stop_closes_the_port(make_server: ServerFactory) -> None:
    server = make_server()
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.base_url + "/sdk/v2/status", timeout=2)


def test_unknown_setting_is_a_type_error(make_server: ServerFactory) -> None:
    with pytest.raises(TypeError, match="rate_brust"):
        make_server(rate_brust=1)


def test_access_log_has_requests_but_no_secrets(
    make_server: ServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    api = api_for(make_server())
    with caplog.at_level(logging.INFO, logger="refserver.access"):
        api.created(configuration={"a": 1})
        api.client.get("/sdk/v2/status?hash=abc", headers={"authorization": api.keys["all"]})
        api.client.get("/sdk/v2/status", headers={"authorization": "svc_pk_wrongsecret"})
        expected = ['"POST /application/1/v2/configuration" 201', '"GET /sdk/v2/status" 401']
        deadline = time.monotonic() + 5  # a line is written just after its response is sent
        while True:
            text = "\n".join(r.getMessage() for r in caplog.records if r.name == "refserver.access")
            if all(line in text for line in expected) or time.monotonic() > deadline:
                break
            time.sleep(0.02)
    assert all(line in text for line in expected), text
    for secret in [api.pat, *api.keys.values(), "wrongsecret"]:
        assert secret not in caplog.text
    api.client.close()
