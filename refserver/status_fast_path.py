"""The status poll served without Starlette's router: ``StatusFastPath``, an ASGI middleware.

``GET /sdk/v2/status`` is the hot path: every game server polls it, and most answers are a 304.
Through the router each poll pays for route matching, a second ``Request``, and two layers of
exception wrapping around each message sent, which together cost about as much as the handler
itself (benchmarks/README.md). The app factory installs this middleware just inside the access
log: it calls ``sdk.sdk_status`` directly and answers an ``ApiError`` (or a Starlette
``HTTPException``) exactly as the installed handlers do; any other exception goes on to
Starlette's ``ServerErrorMiddleware``, as it does from the router. Everything else (other paths,
``HEAD``, a non-empty ``root_path``) goes to the router unchanged.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from refserver.errors import ApiError, api_error_response, http_error_response
from refserver.sdk import STATUS_PATH, sdk_status


class StatusFastPath:
    """Serves ``GET /sdk/v2/status`` itself; passes every other request on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] != STATUS_PATH
            or scope["method"] != "GET"
            or scope.get("root_path")
        ):
            await self.app(scope, receive, send)
            return
        response: Response
        try:
            response = await sdk_status(Request(scope, receive, send))
        except ApiError as exc:
            response = api_error_response(exc)
        except HTTPException as exc:
            response = http_error_response(exc)
        await response(scope, receive, send)
