"""Pure delay arithmetic: jitter readings, exponential backoff, and ``Retry-After`` parsing.

Every function takes its random draw ``u`` (uniform in [0, 1)) and the current time as
arguments, so the bounds can be tested exactly.
"""

from __future__ import annotations

from datetime import UTC
from email.utils import parsedate_to_datetime

from refclient.config import JitterReading


def clamp_ratio(ratio: float) -> float:
    """A jitter ratio clamped to [0, 1] (NaN counts as 0)."""
    if not ratio > 0:
        return 0.0
    return min(ratio, 1.0)


def spread(interval: float, ratio: float, u: float, reading: JitterReading) -> float:
    """``interval`` spread by ``ratio`` under ``reading`` (see ``refclient.config``).

    ``above``: interval * (1 + r * u), never below interval.
    ``symmetric``: interval * (1 - r + 2 * r * u), centred on interval.
    """
    r = clamp_ratio(ratio)
    if reading == "symmetric":
        return interval * (1 - r + 2 * r * u)
    return interval * (1 + r * u)


def backoff(failures: int, base: float, cap: float, ratio: float, u: float) -> float:
    """The wait after the ``failures``-th consecutive failure (1 for the first).

    The nominal wait doubles from ``base``; the jitter spreads it up to ``ratio`` above. The
    doubling stops where the spread could pass ``cap``, so every wait lies in [base, cap] and
    clients that failed together still drift apart once they reach the cap.
    """
    if failures < 1:
        raise ValueError("failures counts from 1")
    r = clamp_ratio(ratio)
    doubled = base * 2.0 ** min(failures - 1, 64)
    nominal = min(doubled, cap / (1 + r))
    return max(base, min(cap, nominal * (1 + r * u)))


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds a ``Retry-After`` value asks to wait (delta-seconds or HTTP date), or None.

    A date in the past gives 0. A value that is neither form gives None (ignored).
    """
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return float(int(text))
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000" parses naive: HTTP dates are GMT anyway
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)
