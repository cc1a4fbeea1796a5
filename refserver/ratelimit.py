"""Per-server rate limiting of the status endpoint: one token bucket per (key, instance).

The instance is the ``server-id`` header when sent, else the client IP, so every caller behind
one IP without an instance id shares a bucket. An empty bucket tells how long until the next
token, which becomes ``Retry-After``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

MAX_BUCKETS = 50_000  # above this, buckets that have refilled completely are forgotten


class RateLimiter:
    """Token buckets keyed by caller; ``take`` returns 0 (allowed) or seconds to wait."""

    def __init__(
        self, burst: int, refill_per_second: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = float(burst)
        self.refill = float(refill_per_second)
        self._clock = clock
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}  # tokens, last time
        self._lock = threading.Lock()

    def take(self, key: str, instance: str) -> int:
        """Spend one token; 0 when allowed, else whole seconds (>= 1) until one is back."""
        now = self._clock()
        bucket_id = (key, instance)
        with self._lock:
            tokens, last = self._buckets.get(bucket_id, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.refill)
            if tokens >= 1.0:
                self._buckets[bucket_id] = (tokens - 1.0, now)
                if len(self._buckets) > MAX_BUCKETS:
                    self._forget_full(now)
                return 0
            self._buckets[bucket_id] = (tokens, now)
        if self.refill <= 0:
            return 3600
        return max(1, math.ceil((1.0 - tokens) / self.refill))

    def _forget_full(self, now: float) -> None:
        full = [
            bucket_id
            for bucket_id, (tokens, last) in self._buckets.items()
            if tokens + (now - last) * self.refill >= self.burst
        ]
        for bucket_id in full:
            del self._buckets[bucket_id]
