"""The two date-time readings: the interface's ISO 8601 (spec 2.1 "ISO 8601 date-time") and the
production convention's RFC 3339 profile (CFG-RECORD-TIMESTAMPS-RFC3339)."""

from __future__ import annotations

import re

import pytest

from conformance.oracles.shapes import DATE_TIME, ISO_8601_DATE_TIME

# (value, ISO 8601, RFC 3339)
CASES = [
    ("2026-01-31T12:00:00.000Z", True, True),
    ("2026-01-31t12:00:00+02:00", True, True),
    ("20260131T120000Z", True, False),  # the basic format
    ("2026-01-31T12:00:00,5Z", True, False),  # a comma fraction
    ("2026-01-31T12:00:00", True, False),  # local time
    ("2026-01-31T12:00+01", True, False),  # to the minute, an hours-only zone
    ("20260131T120000,25+0100", True, False),
    ("2026-01-31", False, False),  # a date alone is no date-time
    ("12:00:00Z", False, False),
    ("yesterday", False, False),
    ("2026/01/31T12:00:00Z", False, False),
    ("20260131T12:00:00Z", False, False),  # basic date, extended time: mixed
    ("2026-01-31T12:00:00ZZ", False, False),
]


@pytest.mark.parametrize(("value", "iso", "rfc3339"), CASES)
def test_each_reading(value: str, iso: bool, rfc3339: bool) -> None:
    assert (re.match(ISO_8601_DATE_TIME, value) is not None) is iso
    assert (re.match(DATE_TIME, value) is not None) is rfc3339
