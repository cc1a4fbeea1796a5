"""Cursor paging of list endpoints: the ``limit`` and ``cursor`` query parameters.

A page is ``{items: [...], nextCursor: string|null}``. Items are ordered by an increasing integer
key (a row id); the cursor is the key of the last item served, wrapped as opaque URL-safe text
(``base64url("p1:<key>")`` without padding). Clients must not build cursors themselves.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from refserver.errors import ApiError

DEFAULT_LIMIT = 50
MAX_LIMIT = 100
_PREFIX = "p1:"
_KEY = re.compile(r"(0|[1-9][0-9]{0,17})")
_DIGITS = re.compile(r"[0-9]{1,4}")

T = TypeVar("T")


@dataclass(frozen=True)
class PageRequest:
    """What the client asked for: at most ``limit`` items with a key above ``after``."""

    limit: int
    after: int


def encode_cursor(key: int) -> str:
    """The opaque cursor that resumes after ``key``."""
    return base64.urlsafe_b64encode(f"{_PREFIX}{key}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The key a cursor resumes after; ApiError 400 INVALID_CURSOR if it is not one of ours."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.urlsafe_b64decode(padded.encode("ascii")).decode("ascii")
    except (ValueError, binascii.Error, UnicodeError):
        raise ApiError(400, "INVALID_CURSOR", "cursor is not one this server issued") from None
    if not cursor or not text.startswith(_PREFIX) or not _KEY.fullmatch(text[len(_PREFIX) :]):
        raise ApiError(400, "INVALID_CURSOR", "cursor is not one this server issued")
    return int(text[len(_PREFIX) :])


def parse_limit(raw: str | None) -> int:
    """The page size: 1 to 100, default 50; ApiError 400 INVALID_REQUEST otherwise."""
    if raw is None:
        return DEFAULT_LIMIT
    if not _DIGITS.fullmatch(raw) or not 1 <= int(raw) <= MAX_LIMIT:
        raise ApiError(400, "INVALID_REQUEST", f"limit must be an integer from 1 to {MAX_LIMIT}")
    return int(raw)


def page_request(query: Mapping[str, str]) -> PageRequest:
    """Read ``limit`` and ``cursor`` from a query string mapping."""
    cursor = query.get("cursor")
    return PageRequest(
        limit=parse_limit(query.get("limit")),
        after=0 if cursor is None else decode_cursor(cursor),
    )


def page(
    rows: Sequence[T], request: PageRequest, key: Callable[[T], int], render: Callable[[T], Any]
) -> dict[str, Any]:
    """The page body from up to ``limit + 1`` rows fetched in key order after ``request.after``."""
    served = rows[: request.limit]
    more = len(rows) > request.limit and bool(served)
    return {
        "items": [render(row) for row in served],
        "nextCursor": encode_cursor(key(served[-1])) if more else None,
    }
