"""refserver.http_stack and the runner: httptools + uvloop when installed, else h11 + asyncio,
with the loop kept to the server's own thread."""

from __future__ import annotations

import asyncio
import importlib.util
import warnings
from importlib.machinery import ModuleSpec
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from refserver import http_stack
from refserver.http_stack import FAST, PLAIN, HttpStack
from refserver.runner import RunningServer, start_server, uvicorn_config

real_find_spec = importlib.util.find_spec


def hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make ``names`` look uninstalled to ``importlib.util.find_spec``."""

    def find_spec(name: str, package: str | None = None) -> ModuleSpec | None:
        return None if name in names else real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


class LoopRecorder:
    """Wraps the app and notes the class of the event loop each request runs on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.loops: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            loop = type(asyncio.get_running_loop())
            self.loops.append(f"{loop.__module__}.{loop.__qualname__}")
        await self.app(scope, receive, send)


def serve(tmp_path: Path, stack: HttpStack | None = None) -> tuple[RunningServer, LoopRecorder]:
    recorders: list[LoopRecorder] = []

    def wrap(app: ASGIApp) -> ASGIApp:
        recorders.append(LoopRecorder(app))
        return recorders[0]

    server = start_server(tmp_path / "stack.db", wrap=wrap, stack=stack)
    return server, recorders[0]


def parser_of(server: RunningServer) -> str:
    return server._server.config.http_protocol_class.__name__


def test_choose_takes_the_fast_pieces_when_installed() -> None:
    if real_find_spec("uvloop") is None or real_find_spec("httptools") is None:
        pytest.skip("the fast extra is not installed here")
    assert http_stack.choose() == FAST
    assert FAST.fast and not PLAIN.fast
    assert str(FAST) == "httptools + uvloop"


@pytest.mark.parametrize(
    ("hidden", "expected"),
    [
        (("uvloop", "httptools"), PLAIN),
        (("uvloop",), HttpStack(http="httptools", loop="asyncio")),
        (("httptools",), HttpStack(http="h11", loop="uvloop")),
    ],
)
def test_choose_falls_back_piece_by_piece(
    monkeypatch: pytest.MonkeyPatch, hidden: tuple[str, ...], expected: HttpStack
) -> None:
    if real_find_spec("uvloop") is None or real_find_spec("httptools") is None:
        pytest.skip("the fast extra is not installed here")
    hide(monkeypatch, *hidden)
    assert http_stack.choose() == expected


def test_uvicorn_config_carries_the_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    hide(monkeypatch, "uvloop", "httptools")
    config = uvicorn_config(Starlette())
    assert (config.http, config.loop) == ("h11", "asyncio")
    forced = uvicorn_config(Starlette(), stack=FAST)
    assert (forced.http, forced.loop) == ("httptools", "uvloop")


def test_runner_serves_on_the_fast_stack_in_its_own_thread_only(tmp_path: Path) -> None:
    if real_find_spec("uvloop") is None or real_find_spec("httptools") is None:
        pytest.skip("the fast extra is not installed here")
    policy_before = asyncio.get_event_loop_policy()
    server, recorder = serve(tmp_path)
    try:
        assert server.stack == FAST
        assert httpx.get(server.base_url + "/sdk/v2/status").status_code == 401
        assert recorder.loops == ["uvloop.Loop"]
        assert parser_of(server) == "HttpToolsProtocol"
        # the rest of the process keeps asyncio: no policy was set, a new loop here is asyncio's
        assert asyncio.get_event_loop_policy() is policy_before
        here = asyncio.new_event_loop()
        try:
            assert type(here).__module__.startswith("asyncio"), type(here)
        finally:
            here.close()
    finally:
        server.stop()


def test_runner_falls_back_quietly_without_the_fast_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    hide(monkeypatch, "uvloop", "httptools")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        server, recorder = serve(tmp_path)
        try:
            assert server.stack == PLAIN
            assert httpx.get(server.base_url + "/sdk/v2/status").status_code == 401
            [loop] = recorder.loops
            assert loop.startswith("asyncio."), loop
            assert parser_of(server) == "H11Protocol"
        finally:
            server.stop()
    assert [str(w.message) for w in seen] == []
    assert [r.getMessage() for r in caplog.records if r.levelname != "INFO"] == []
