"""Access logging as a pure ASGI middleware: method, path, status, time, client address.

Never the query string or any header, so no credential can reach the log.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("refserver.access")


class AccessLog:
    """Logs one line per HTTP request at INFO on ``refserver.access``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = [500]

        async def send_and_note(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            client: Any = scope.get("client") or ("-", 0)
            log.info(
                '%s "%s %s" %d %.1fms',
                client[0],
                scope["method"],
                scope["path"],
                status[0],
                (time.perf_counter() - started) * 1000,
            )
