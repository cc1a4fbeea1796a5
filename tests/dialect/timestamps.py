"""Timestamps: refserver's ``...sssZ`` <-> the dialect's fixed offset with microseconds."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from dialect.choices import TIMESTAMP_OFFSET_MINUTES

ZONE = timezone(timedelta(minutes=TIMESTAMP_OFFSET_MINUTES))
_REFERENCE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

# Fields holding a timestamp, wherever the dialect writes a record.
FIELDS = frozenset(
    {
        "createdAt",
        "updatedAt",
        "deletedAt",
        "startsAt",
        "endsAt",
        "terminatedAt",
        "assignedAt",
        "lastSeenAt",
    }
)


def to_dialect(value: object) -> object:
    """``2026-11-27T03:31:55.123Z`` -> ``2026-11-27T04:31:55.123000+01:00``; others unchanged."""
    if not isinstance(value, str) or not _REFERENCE.fullmatch(value):
        return value
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment.astimezone(ZONE).isoformat(timespec="microseconds")


def to_reference(value: object) -> object:
    """An ISO 8601 date-time with an offset -> the reference UTC form; others unchanged."""
    if not isinstance(value, str):
        return value
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is None:
        return value
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def record_to_dialect(record: dict[str, Any]) -> dict[str, Any]:
    """A record's timestamp fields (top level only) in the dialect's form."""
    return {k: to_dialect(v) if k in FIELDS else v for k, v in record.items()}
