"""The dialect's own rate limit (one bucket per instance id, whatever the key) and load meter."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from email.utils import formatdate


class Buckets:
    """Token buckets by caller; ``take`` returns None (allowed) or the moment a token is back."""

    def __init__(
        self, burst: int, refill: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = float(burst)
        self.refill = refill
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, caller: str) -> float | None:
        """Spend a token of ``caller``; None when allowed, else seconds until one is back."""
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(caller, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.refill)
            if tokens >= 1.0:
                self._buckets[caller] = (tokens - 1.0, now)
                return None
            self._buckets[caller] = (tokens, now)
            if len(self._buckets) > 100_000:
                self._buckets.clear()
        return (1.0 - tokens) / self.refill


def http_date_after(seconds: float, now: Callable[[], float] = time.time) -> str:
    """Retry-After as an HTTP date: the first whole second at or after the token is back."""
    return formatdate(math.ceil(now() + seconds), usegmt=True)


class Meter:
    """SDK requests over a trailing window; shedding while their rate is above a threshold."""

    def __init__(
        self,
        threshold_per_second: float,
        window_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = threshold_per_second * window_seconds
        self.window = window_seconds
        self._clock = clock
        self._hits: deque[float] = deque()
        self._lock = threading.Lock()

    def hit(self) -> None:
        with self._lock:
            self._hits.append(self._clock())

    def shedding(self) -> bool:
        now = self._clock()
        with self._lock:
            while self._hits and self._hits[0] <= now - self.window:
                self._hits.popleft()
            return len(self._hits) > self.limit
