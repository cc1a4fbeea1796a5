"""Per-server rate limiting of the status endpoint: one token bucket per (key, instance).

The instance is the ``server-id`` header when sent, else the client IP, so every caller behind
one IP without an instance id shares a bucket. The key is the SDK key, or ``""`` for every key
under ``--rate-scope instance`` (then one bucket per instance id whatever the key). An empty
bucket tells how long until the next token, which becomes ``Retry-After``.

Buckets are kept in order of last use. Each call first forgets buckets from the least recently
used end while they have refilled completely (a forgotten bucket and a full one answer alike),
so forgetting is amortised O(1) per call and memory holds only the callers of the last
``burst / refill`` seconds. ``MAX_BUCKETS`` is a hard bound on top: beyond it the least
recently used bucket is forgotten even if not yet full (only with that many distinct callers
inside one refill window).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MAX_BUCKETS = 50_000


class RateLimiter:
    """Token buckets keyed by caller; ``take`` returns 0 (allowed) or seconds to wait."""

    def __init__(
        self,
        burst: int,
        refill_per_second: float,
        clock: Callable[[], float] = time.monotonic,
        max_buckets: int = MAX_BUCKETS,
    ) -> None:
        self.burst = float(burst)
        self.refill = float(refill_per_second)
        self.max_buckets = max_buckets
        self._clock = clock
        # (key, instance) -> (tokens, last use), least recently used first
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many buckets are remembered."""
        return len(self._buckets)

    def take(self, key: str, instance: str) -> int:
        """Spend one token; 0 when allowed, else whole seconds (>= 1) until one is back."""
        now = self._clock()
        bucket_id = (key, instance)
        with self._lock:
            self._forget_idle(now)
            tokens, last = self._buckets.pop(bucket_id, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.refill)
            if tokens >= 1.0:
                self._buckets[bucket_id] = (tokens - 1.0, now)
                return 0
            self._buckets[bucket_id] = (tokens, now)
        if self.refill <= 0:
            return 3600
        return max(1, math.ceil((1.0 - tokens) / self.refill))

    def _forget_idle(self, now: float) -> None:
        """Drop full buckets from the least recently used end (and any beyond the bound)."""
        buckets = self._buckets
        while buckets:
            tokens, last = next(iter(buckets.values()))
            full = tokens + (now - last) * self.refill >= self.burst
            if not full and len(buckets) < self.max_buckets:
                return
            buckets.popitem(last=False)
