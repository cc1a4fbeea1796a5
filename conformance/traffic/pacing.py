"""Pacing: spaces the suite's own requests so they stay inside the target's rate-limit buckets."""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass

from conformance.traffic.token_bucket import Limit, TokenBucket

# The share of a bucket the suite allows itself: a margin against clock skew and refill rounding.
SHARE = 0.5


@dataclass(frozen=True)
class Allowance:
    """One process's part of a declared bucket, worked out once: what it paces itself to, and
    what the ledger may take as left to it when the run's other processes spend theirs."""

    paced: Limit
    left: Limit

    @classmethod
    def of(cls, declared: Limit, *, shared: bool, workers: int) -> Allowance:
        """``shared``: every worker process of the run spends this bucket (callers without an
        instance id, the management limit); each paces itself to ``SHARE / workers`` of it."""
        divisor = max(1, workers) if shared else 1
        paced = declared.scaled(SHARE / divisor)
        paced = Limit(max(1.0, paced.burst), paced.refill_per_second)
        others = SHARE * (divisor - 1) / divisor
        return cls(paced, declared.scaled(1.0 - others))


class Pacer:
    """One token bucket per target bucket key, smaller than the target's, waited on before
    sending. One per process: every test's client spends the same buckets."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self._buckets: dict[Hashable, TokenBucket] = {}
        self._lock = threading.Lock()

    def allowance(self, declared: Limit, *, shared: bool) -> Allowance:
        return Allowance.of(declared, shared=shared, workers=self.workers)

    def wait(self, bucket: Hashable, limit: Limit) -> float:
        """Block until one request may go to ``bucket`` paced to ``limit``; the seconds waited."""
        with self._lock:
            now = time.monotonic()
            state = self._buckets.get(bucket)
            if state is None or state.limit != limit:
                state = self._buckets[bucket] = TokenBucket(limit, now)
            delay = state.reserve(now)
        if delay:
            time.sleep(delay)
        return delay

    def reset(self, bucket: Hashable) -> None:
        """Forget a bucket (after a test drained it on purpose and waited out Retry-After)."""
        with self._lock:
            self._buckets.pop(bucket, None)
