"""refserver.slug and refserver.timestamps."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from refserver.slug import slugify
from refserver.timestamps import format_ts, now_iso, parse_ts


@pytest.mark.parametrize(
    ("text", "slug"),
    [("Shop Prices", "shop-prices"), ("  A--b  c!! ", "a-b-c"), ("Ünïcode", "ncode"), ("!!", "")],
)
def test_slugify(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_timestamps_round_trip_with_milliseconds() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert format_ts(moment) == "2026-01-02T03:04:05.678Z"
    assert parse_ts("2026-01-02T03:04:05.678Z") == moment.replace(microsecond=678000)
    assert len(now_iso()) == 24 and now_iso().endswith("Z")
