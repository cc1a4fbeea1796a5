"""Turning raw request input into checked values: ids and JSON request bodies.

Bad input becomes an ``ApiError`` with a 4xx status here, never an exception deeper down:
huge or non-numeric ids, non-JSON media types, oversized, invalid UTF-8, deeply nested or
non-finite JSON, and lone surrogates that could not be written back out.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from refserver.errors import ApiError
from refserver.settings import MAX_BODY_BYTES

MAX_ID = 2**63 - 1  # SQLite INTEGER range


def parse_id(raw: str | None) -> int | None:
    """A positive integer id within SQLite's range, or None."""
    if raw is None or not raw.isascii() or not raw.isdigit() or len(raw) > 19:
        return None
    value = int(raw)
    return value if 0 < value <= MAX_ID else None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(data: bytes | str) -> Any:
    """Strict JSON: no NaN/Infinity; ValueError/RecursionError on anything else bad."""
    return json.loads(data, parse_constant=_reject_constant)


def check_encodable(value: Any) -> None:
    """ValueError when the value cannot be written back as UTF-8 JSON (lone surrogates)."""
    json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")


def _is_json_media_type(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


async def json_body(request: Request, limit: int = MAX_BODY_BYTES) -> Any:
    """The request body as a JSON value, after media-type, size and syntax checks."""
    content_type = request.headers.get("content-type")
    declared = request.headers.get("content-length")
    if (
        declared is not None
        and declared.isdigit()
        and (len(declared) > 15 or int(declared) > limit)
    ):
        raise ApiError(413, "PAYLOAD_TOO_LARGE", f"the request body is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(
                413, "PAYLOAD_TOO_LARGE", f"the request body is larger than {limit} bytes"
            )
        chunks.append(chunk)
    data = b"".join(chunks)
    if content_type is None:
        if not data:
            raise ApiError(400, "INVALID_JSON", "a JSON request body is required")
        raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
    if not _is_json_media_type(content_type):
        raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
    try:
        value = loads(data)
        check_encodable(value)
    except RecursionError:
        raise ApiError(400, "INVALID_JSON", "the JSON body is nested too deeply") from None
    except ValueError as exc:  # includes JSONDecodeError and UnicodeDecodeError
        raise ApiError(400, "INVALID_JSON", f"the body is not valid JSON: {_short(exc)}") from None
    return value


def json_object_body_error() -> ApiError:
    """The error for a JSON body that is not an object."""
    return ApiError(400, "INVALID_REQUEST", "the body must be a JSON object")


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "..."
