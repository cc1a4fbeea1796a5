"""Unit tests of refserver.paging: limit, opaque cursors, page assembly."""

from __future__ import annotations

import pytest

from refserver.errors import ApiError
from refserver.paging import (
    DEFAULT_LIMIT,
    PageRequest,
    decode_cursor,
    encode_cursor,
    page,
    page_request,
)


@pytest.mark.parametrize("key", [0, 1, 49, 10**12])
def test_cursor_round_trip(key: int) -> None:
    cursor = encode_cursor(key)
    assert str(key) not in cursor or key < 10  # opaque, not the bare number
    assert decode_cursor(cursor) == key


@pytest.mark.parametrize("bad", ["", "abc", "!!!", "cDE6eA", "MTI", "é", "cDE6LTE", "cDE6MDE"])
def test_bad_cursor_is_400(bad: str) -> None:
    with pytest.raises(ApiError) as caught:
        decode_cursor(bad)
    assert (caught.value.status, caught.value.code) == (400, "INVALID_CURSOR")


@pytest.mark.parametrize("bad", ["0", "101", "-1", "x", "1.5", "", " 5", "99999"])
def test_bad_limit_is_400(bad: str) -> None:
    with pytest.raises(ApiError) as caught:
        page_request({"limit": bad})
    assert caught.value.status == 400


def test_defaults() -> None:
    assert page_request({}) == PageRequest(limit=DEFAULT_LIMIT, after=0)
    assert page_request({"limit": "100"}).limit == 100


def test_pages_walk_every_item_once() -> None:
    rows = list(range(1, 8))
    served: list[int] = []
    request = PageRequest(limit=3, after=0)
    while True:
        fetched = [r for r in rows if r > request.after][: request.limit + 1]
        body = page(fetched, request, key=lambda r: r, render=lambda r: {"id": r})
        served += [item["id"] for item in body["items"]]
        if body["nextCursor"] is None:
            break
        request = PageRequest(limit=3, after=decode_cursor(body["nextCursor"]))
    assert served == rows


def test_exact_fill_has_no_next_cursor() -> None:
    body = page([1, 2, 3], PageRequest(limit=3, after=0), key=lambda r: r, render=lambda r: r)
    assert body == {"items": [1, 2, 3], "nextCursor": None}
