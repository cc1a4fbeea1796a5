"""Offset pagination (pages of up to 20) over refserver's cursor pages: read all, then slice.

A dialect page is ``{results: [...]}``: at most ``take`` items after skipping ``skip``; a page
with fewer items than asked is the last. The reference pages are followed through their cursors.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from dialect.choices import PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX

DEFAULT_TAKE = PAGE_SIZE_DEFAULT
MAX_TAKE = PAGE_SIZE_MAX
MAX_SKIP = 10**9
_DIGITS = re.compile(r"0|[1-9][0-9]{0,9}")


class OffsetError(ValueError):
    """A take or skip parameter out of its bounds."""


@dataclass(frozen=True)
class Window:
    """Which items one page holds."""

    skip: int
    take: int

    def of(self, items: list[Any]) -> list[Any]:
        return items[self.skip : self.skip + self.take]


def window(take: str | None, skip: str | None) -> Window:
    """The page asked for; OffsetError if take is not 1..100 or skip not a count."""
    size = DEFAULT_TAKE
    if take is not None:
        if not _DIGITS.fullmatch(take) or not 1 <= int(take) <= MAX_TAKE:
            raise OffsetError(f"take must be an integer from 1 to {MAX_TAKE}")
        size = int(take)
    start = 0
    if skip is not None:
        if not _DIGITS.fullmatch(skip) or int(skip) > MAX_SKIP:
            raise OffsetError("skip must be a non-negative integer")
        start = int(skip)
    return Window(start, size)


Fetch = Callable[[str | None], Awaitable[tuple[list[Any], str | None] | None]]


async def whole_list(fetch: Fetch) -> list[Any] | None:
    """Every item, following cursors: ``fetch(cursor)`` returns (items, next cursor), or None when
    the reference server refused (its answer is then the caller's to pass on)."""
    items: list[Any] = []
    cursor: str | None = None
    while True:
        page = await fetch(cursor)
        if page is None:
            return None
        more, cursor = page
        items.extend(more)
        if not cursor:
            return items
