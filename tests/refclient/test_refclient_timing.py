"""refclient.timing: both jitter readings and their bounds, backoff doubling and its cap,
Retry-After in both forms."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from refclient.timing import backoff, clamp_ratio, retry_after, spread

DRAWS = [i / 100 for i in range(100)]  # u in [0, 1)


@pytest.mark.parametrize(("ratio", "clamped"), [(0.2, 0.2), (-1, 0.0), (3, 1.0), (math.nan, 0.0)])
def test_ratio_is_clamped_to_unit_interval(ratio: float, clamped: float) -> None:
    assert clamp_ratio(ratio) == clamped


def test_above_reading_never_goes_below_the_interval() -> None:
    delays = [spread(30.0, 0.2, u, "above") for u in DRAWS]
    assert min(delays) == 30.0
    assert all(30.0 <= d < 36.0 for d in delays)
    assert max(delays) == pytest.approx(30.0 * (1 + 0.2 * 0.99))


def test_symmetric_reading_is_centred_and_can_come_in_early() -> None:
    delays = [spread(30.0, 0.2, u, "symmetric") for u in DRAWS]
    assert spread(30.0, 0.2, 0.0, "symmetric") == pytest.approx(24.0)
    assert spread(30.0, 0.2, 0.5, "symmetric") == pytest.approx(30.0)
    assert all(24.0 <= d < 36.0 for d in delays)
    assert min(delays) < 30.0  # the reason "above" is the default


@pytest.mark.parametrize("reading", ["above", "symmetric"])
def test_ratio_outside_unit_interval_is_clamped_in_both_readings(reading: str) -> None:
    assert spread(10.0, 5.0, 0.0, reading) == spread(10.0, 1.0, 0.0, reading)  # type: ignore[arg-type]
    assert spread(10.0, -2.0, 0.7, reading) == 10.0  # type: ignore[arg-type]


def test_backoff_doubles_from_base() -> None:
    assert [backoff(n, 5.0, 300.0, 0.2, 0.0) for n in range(1, 7)] == [5, 10, 20, 40, 80, 160]


def test_backoff_stays_within_base_and_cap_and_keeps_spreading_at_the_cap() -> None:
    for n in range(1, 40):
        for u in DRAWS:
            assert 5.0 <= backoff(n, 5.0, 300.0, 0.2, u) <= 300.0
    at_cap = {backoff(30, 5.0, 300.0, 0.2, u) for u in (0.0, 0.5, 0.99)}
    assert len(at_cap) == 3  # clients that failed together still drift apart
    assert max(at_cap) == pytest.approx(300.0 / 1.2 * (1 + 0.2 * 0.99))


def test_backoff_jitter_spreads_each_step() -> None:
    assert backoff(3, 5.0, 300.0, 0.2, 0.5) == pytest.approx(20.0 * 1.1)
    assert backoff(1, 5.0, 300.0, 0.0, 0.9) == 5.0


def test_backoff_counts_failures_from_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        backoff(0, 5.0, 300.0, 0.2, 0.0)


def test_retry_after_delta_seconds() -> None:
    assert retry_after("120", now=0.0) == 120.0
    assert retry_after(" 3 ", now=0.0) == 3.0


def test_retry_after_http_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC).timestamp()
    later = format_datetime(datetime(2026, 1, 1, 12, 0, 45, tzinfo=UTC), usegmt=True)
    earlier = format_datetime(datetime(2026, 1, 1, 11, 0, 0, tzinfo=UTC), usegmt=True)
    assert later.endswith("GMT")
    assert retry_after(later, now) == pytest.approx(45.0)
    assert retry_after(earlier, now) == 0.0


@pytest.mark.parametrize("value", [None, "", "soon", "-5", "1.5"])
def test_retry_after_that_is_neither_form_is_ignored(value: str | None) -> None:
    assert retry_after(value, now=0.0) is None
