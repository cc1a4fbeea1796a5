"""The suite's own traffic: what this process sent to each rate-limit bucket of the target.

A 429 the suite did not provoke is the target's fault unless the suite itself spent the bucket.
``Ledger`` replays every request this process sent to a bucket through the bucket the profile
declares (burst, refill per second), so a 429 can be judged with a figure: how many requests
the suite sent since the bucket was last full, and how many tokens the declared bucket would
still hold. Buckets shared with the other workers of a run (callers without an instance id) are
replayed through what the caller says is left to this process of the declared bucket.

``judge_429`` is the one judge of a 429 (the scenarios' client and the fuzz stage alike): the
only excuse is this process's own traffic, replayed; any other 429 is evidence against the
target. ``LEDGER`` is the one ledger of a process, and ``sdk_bucket_key``/``management_bucket_key``
the one spelling of its keys, so every sender of a process counts in the same buckets.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum

from conformance.traffic.token_bucket import Limit, TokenBucket

RATE_LIMITED = 429  # the default of errors.rate_limited_status (RFC 6585), the convention

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
"""The process's one ledger: every sender of a process (each ``Client``, the fuzzer) counts here."""


def sdk_bucket_key(base_url: str, bucket: tuple[str, str | None]) -> tuple[str, ...]:
    """The ledger's key of the target's SDK bucket ``bucket`` (``SdkRateLimit.bucket``)."""
    return ("sdk", base_url.rstrip("/"), bucket[0], bucket[1] or "")


def management_bucket_key(base_url: str) -> tuple[str, ...]:
    """The ledger's key of the target's management bucket (one per target)."""
    return ("management", base_url.rstrip("/"))


class Refusal(StrEnum):
    """What a 429 says, judged by what this process sent to the bucket it spends."""

    OWN = "own"  # the suite's own traffic could have emptied the declared bucket: excused
    UNPROVOKED = "unprovoked"  # the suite kept within the declared bucket: the target's fault
    UNACCOUNTED = "unaccounted"  # no declared bucket was replayed for it: nothing excuses it


def judge_429(
    status: int, replay: Replay | None, refusal_status: int = RATE_LIMITED
) -> Refusal | None:
    """The one judge of a rate-limit refusal: None when ``status`` is not ``refusal_status``
    (the profile's ``errors.rate_limited_status``, 429 by default); else whether this process's
    own traffic (``replay``, as the request was sent; None: no declared bucket covers it)
    excuses it."""
    if status != refusal_status:
        return None
    if replay is None:
        return Refusal.UNACCOUNTED
    return Refusal.OWN if replay.suite_exceeded else Refusal.UNPROVOKED
