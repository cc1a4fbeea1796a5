"""The suite's own traffic: what this process sent to each rate-limit bucket of the target.

A 429 the suite did not provoke is the target's fault unless the suite itself spent the bucket.
``Ledger`` replays every request this process sent to a bucket through the bucket the profile
declares (burst, refill per second), so a 429 can be judged with a figure: how many requests
the suite sent since the bucket was last full, and how many tokens the declared bucket would
still hold. Buckets shared with the other workers of a run (callers without an instance id) are
replayed as if the other workers had spent their whole paced share.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass

from conformance.traffic.token_bucket import Limit, TokenBucket

# Tokens the replay must leave, beyond the one a request takes, before a 429 counts against the
# target: a margin for clock rounding between the suite and the target.
MARGIN_TOKENS = 1.0


@dataclass(frozen=True)
class Replay:
    """The declared bucket as the suite's own requests alone would have left it."""

    sent: int  # requests sent to the bucket since it was last full (the last one included)
    seconds: float  # over how long
    tokens: float  # tokens the declared bucket held when the last request was sent
    limit: Limit

    @property
    def suite_exceeded(self) -> bool:
        """Whether the suite's own requests could have emptied the declared bucket."""
        return self.tokens < 1.0 + MARGIN_TOKENS

    def describe(self) -> str:
        return (
            f"the suite sent {self.sent} request(s) to this bucket in {self.seconds:.2f}s; "
            f"the declared bucket (burst {self.limit.burst:g}, refill "
            f"{self.limit.refill_per_second:g}/s) would have held {self.tokens:.1f} token(s) "
            "when the refused request was sent"
        )


@dataclass
class _Spent:
    bucket: TokenBucket
    sent: int
    since: float


class Ledger:
    """Per bucket, the declared bucket's state after the suite's own requests (O(1) each)."""

    def __init__(self) -> None:
        self._buckets: dict[Hashable, _Spent] = {}
        self._lock = threading.Lock()

    def record(self, bucket: Hashable, limit: Limit, at: float | None = None) -> Replay:
        """Count one request sent to ``bucket`` at ``at``; the replay as it was sent."""
        now = time.monotonic() if at is None else at
        with self._lock:
            state = self._buckets.get(bucket)
            if state is None or state.bucket.limit != limit or state.bucket.full(now):
                state = _Spent(TokenBucket(limit, now), 0, now)  # what came before no longer counts
                self._buckets[bucket] = state
            state.sent += 1
            replay = Replay(state.sent, now - state.since, state.bucket.advance(now), limit)
            state.bucket.take(now)
        return replay

    def forget(self, bucket: Hashable) -> None:
        with self._lock:
            self._buckets.pop(bucket, None)


LEDGER = Ledger()
"""The process's ledger: every ``Client`` of one process sends from the same place."""
