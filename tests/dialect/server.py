"""The dialect server: routes each request to its translation around the reference app, and
serves it (``serve``) on a free port with the reference server's own limit and shedding off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from faulty.asgi import FaultyApp, Forward, Handler, Request, Response

from dialect import experiments, management, sdk
from dialect.refusals import translated
from dialect.spelling import spelled
from dialect.state import DialectState
from refserver.runner import RunningServer, start_server

# The reference server's own rate limit and load shedding never act: the dialect's do.
REFERENCE_OFF: dict[str, Any] = {
    "rate_burst": 10**9,
    "rate_refill": 10.0**9,
    "shed_threshold": 10**9,
}


class Dialect:
    """The handler: ``await dialect(request, forward)``."""

    def __init__(self) -> None:
        self.state = DialectState()

    async def __call__(self, request: Request, forward: Forward) -> Response:
        return spelled(await self._route(request, forward))

    async def _route(self, request: Request, forward: Forward) -> Response:
        path = request.path
        if path.startswith("/sdk/v2/"):
            return await sdk.handle(request, forward, self.state)
        if "/v2/configuration" in path and path.startswith("/application/"):
            return await management.handle(request, forward, self.state)
        if "/v2/experiments" in path and path.startswith("/application/"):
            return await experiments.handle(request, forward)
        return translated(await forward(request))


def serve(db: Path, profile: Path, handler: Handler | None = None) -> RunningServer:
    """Start the dialect (or ``handler``, a variant of it) on 127.0.0.1; the profile refserver
    writes there is the reference's (``dialect.profile.write`` turns it into the dialect's)."""
    chosen: Handler = handler or Dialect()
    return start_server(
        db, profile_path=profile, wrap=lambda app: FaultyApp(app, chosen), **REFERENCE_OFF
    )
