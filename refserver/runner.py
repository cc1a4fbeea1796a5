"""Run the reference server in-process: the programmatic API for the suite and for tests.

    from refserver.runner import start_server

    server = start_server("/tmp/x.db")                    # uvicorn on 127.0.0.1, free port
    server.base_url                                        # "http://127.0.0.1:54321"
    server.profile_path                                    # the target profile it wrote (0600)
    server.app                                             # the Starlette app (unwrapped)
    server.stack                                           # httptools + uvloop, if installed
    server.stop()                                          # graceful shutdown; joins the thread

    # a faulty server: wrap the ASGI app before it is served
    start_server(db, wrap=lambda app: AlwaysOk(app), force_shedding=True, rate_burst=5)

Keyword settings are the fields of ``refserver.settings.Settings`` (``rate_burst``,
``rate_refill``, ``shed_threshold``, ``force_shedding``, ...). ``start_server`` also works as
a context manager. ``bind_socket``, ``url_of`` and ``uvicorn_config`` are what ``refserver
serve`` uses too. The HTTP parser and event loop come from ``refserver.http_stack.choose()``
(httptools and uvloop when installed, else h11 and asyncio; ``stack=`` forces one); the loop is
the server thread's own, so the rest of the process keeps asyncio's.
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp

from refserver import target_profile
from refserver.app import create_app
from refserver.http_stack import HttpStack, choose
from refserver.settings import Settings
from refserver.state import AppState

STARTUP_TIMEOUT_SECONDS = 15.0
SEND_BUFFER_BYTES = 1024 * 1024


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0: the kernel picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # asyncio: TCP_NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this: a whole bootstrap or large snapshot goes out in one send
    # instead of several event-loop turns.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://host:port`` of a bound socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def uvicorn_config(
    app: ASGIApp, log_level: str = "warning", stack: HttpStack | None = None
) -> uvicorn.Config:
    """The uvicorn configuration both the CLI and the runner use (``stack``: ``choose()``)."""
    chosen = stack or choose()
    return uvicorn.Config(
        app,
        http=chosen.http,
        loop=chosen.loop,
        log_level=log_level,
        access_log=False,  # refserver.access_log logs requests without headers
        timeout_graceful_shutdown=5,
        lifespan="on",
    )


def make_settings(db_path: str | Path, **settings: Any) -> Settings:
    """Settings from keyword overrides; unknown names are a TypeError."""
    names = {f.name for f in dataclasses.fields(Settings)}
    unknown = set(settings) - names
    if unknown:
        raise TypeError(f"unknown settings: {sorted(unknown)}")
    return Settings(db_path=Path(db_path), **settings)


class RunningServer:
    """A reference server served by uvicorn in a background thread."""

    def __init__(
        self,
        app: Starlette,
        served: ASGIApp,
        sock: socket.socket,
        profile_path: Path,
        log_level: str,
        stack: HttpStack,
    ) -> None:
        self.app = app
        self.base_url = url_of(sock)
        self.profile_path = profile_path
        self.stack = stack
        self._sock = sock
        self._server = uvicorn.Server(uvicorn_config(served, log_level, stack))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="refserver", daemon=True
        )

    @property
    def state(self) -> AppState:
        """The app's state (store, limiter, load meter)."""
        state: AppState = self.app.state.rces
        return state

    def _start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("refserver did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        """Shut down gracefully and wait for the thread; idempotent."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=STARTUP_TIMEOUT_SECONDS)
        self._sock.close()
        self.state.unit_writes.close()
        self.state.store.close()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def start_server(
    db_path: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    profile_path: str | Path | None = None,
    wrap: Callable[[ASGIApp], ASGIApp] | None = None,
    log_level: str = "warning",
    stack: HttpStack | None = None,
    **settings: Any,
) -> RunningServer:
    """Start a server on ``host:port`` (0: free port); returns once it accepts requests.

    ``stack``: the HTTP parser and event loop (default: ``http_stack.choose()``)."""
    resolved = make_settings(db_path, **settings)
    app = create_app(resolved)
    path = Path(profile_path) if profile_path else target_profile.default_path(resolved.db_path)
    target_profile.write(app.state.rces.store, resolved, path)
    sock = bind_socket(host, port)
    served: ASGIApp = wrap(app) if wrap else app
    server = RunningServer(app, served, sock, path, log_level, stack or choose())
    server._start()
    return server
