"""The one exception root of the reference server and how it becomes an HTTP response.

Every handler raises ``ApiError(status, code, message)``; ``error_handlers()`` (installed by the
app factory) renders it, Starlette's own 404/405, and any unexpected exception as
``{"errorCode": ..., "message": ...}`` JSON. An unexpected exception is logged and answers 500:
that is a last resort, never the designed answer to bad input.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

log = logging.getLogger("refserver.errors")


class ApiError(Exception):
    """An answer that is an error: HTTP status, UPPER_SNAKE code, human message."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    """The JSON error body every error answer carries."""
    body = json.dumps({"errorCode": code, "message": message}, ensure_ascii=True)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


# Starlette's own HTTP errors (routing, body limits) mapped onto our codes.
HTTP_CODES: dict[int, tuple[str, str]] = {
    400: ("INVALID_REQUEST", "the request is malformed"),
    404: ("NOT_FOUND", "no such route"),
    405: ("METHOD_NOT_ALLOWED", "method not allowed on this route"),
    413: ("PAYLOAD_TOO_LARGE", "the request body is larger than 1 MiB"),
}


def api_error_response(exc: ApiError) -> Response:
    """The answer to an ``ApiError``."""
    return error_response(exc.status, exc.code, exc.message, exc.headers)


def http_error_response(exc: HTTPException) -> Response:
    """The answer to one of Starlette's own HTTP errors."""
    code, message = HTTP_CODES.get(exc.status_code, ("HTTP_ERROR", "request failed"))
    headers = dict(exc.headers or {})
    return error_response(exc.status_code, code, message, headers)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return api_error_response(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return http_error_response(exc)


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error(
        "unexpected error on %s %s",
        request.method,
        request.url.path,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    return error_response(500, "INTERNAL_ERROR", "unexpected server error")


def error_handlers() -> dict[Any, Any]:
    """Exception handlers for the Starlette app factory."""
    return {ApiError: _api_error, HTTPException: _http_error, Exception: _unexpected}
