"""Timestamps as the interface writes them: UTC ISO 8601 with milliseconds and ``Z``.

Strings in this one format sort in time order, so stored timestamps compare as text.
"""

from __future__ import annotations

from datetime import UTC, datetime


def format_ts(moment: datetime) -> str:
    """``2026-01-31T12:00:00.000Z`` for an aware or naive-UTC datetime."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    """The current moment in the interface's format."""
    return format_ts(datetime.now(UTC))


def parse_ts(text: str) -> datetime:
    """An aware UTC datetime from an ISO 8601 string (``Z`` or an offset); ValueError if not."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
