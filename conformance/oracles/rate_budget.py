"""What a declared token bucket must have held when a request reached the target, knowing only
when the suite sent each request and when its answer came back.

Each request arrived somewhere between its send and its answer, so the bound holds whatever the
target's (or a proxy's) speed: a slow answer widens the window and only makes the bound more
lenient. A correct bucket, full at ``start``, holds at the arrival of request k at least

    min over u in [start, s_k] of  burst + refill * (s_k - u) - #{j != k : s_j <= a_k, a_j > u}

(the requests that may have arrived between u and k's arrival; refill counted only up to k's
send). The minimum sits at ``start``, at ``s_k``, or just before one of the answers in between.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from conformance.traffic.token_bucket import Limit

# Tokens a refusal must leave in the bound, beyond the one the request takes, before it counts
# against the target: rounding between the target's clock and ours.
MARGIN_TOKENS = 1.0


@dataclass(frozen=True)
class Window:
    """When one request left the suite and when its answer came back (monotonic seconds)."""

    sent: float
    answered: float


def floor_tokens(limit: Limit, windows: Sequence[Window], k: int, start: float) -> float:
    """The fewest tokens a correct ``limit`` bucket, full at ``start``, can have held when request
    ``k`` arrived, whatever the order and timing of arrivals inside each window."""
    mine = windows[k]
    others = sorted(w.answered for j, w in enumerate(windows) if j != k and w.sent <= mine.answered)
    lowest = float(limit.burst)
    candidates = [start, mine.sent] + [a for a in others if start < a <= mine.sent]
    for u in candidates:
        still = len(others) - bisect.bisect_left(others, u)  # answered at or after u: may be later
        bound = limit.burst + limit.refill_per_second * max(0.0, mine.sent - u) - still
        lowest = min(lowest, bound)
    return lowest


@dataclass(frozen=True)
class EarlyRefusal:
    """A refusal a correct declared bucket could not have given, with its figure."""

    index: int
    tokens: float

    def describe(self, limit: Limit, windows: Sequence[Window], start: float) -> str:
        window = windows[self.index]
        before = sum(1 for w in windows if w.sent < window.sent)
        return (
            f"refused {window.sent - start:.3f}s after the first request, with {before} sent "
            f"before it: a bucket of burst {limit.burst:g} refilling at "
            f"{limit.refill_per_second:g}/s held at least {self.tokens:.1f} token(s) then"
        )


def early_refusal(
    limit: Limit, windows: Sequence[Window], refused: Sequence[int], start: float
) -> EarlyRefusal | None:
    """The refusal that leaves the most tokens in the bound, if any leaves more than the margin."""
    worst: EarlyRefusal | None = None
    for k in refused:
        tokens = floor_tokens(limit, windows, k, start)
        if tokens >= 1.0 + MARGIN_TOKENS and (worst is None or tokens > worst.tokens):
            worst = EarlyRefusal(k, tokens)
    return worst
