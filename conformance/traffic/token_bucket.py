"""The token-bucket model: the one arithmetic behind the suite's pacing and its ledger."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """A declared token bucket: ``burst`` requests at once, ``refill_per_second`` after."""

    burst: float
    refill_per_second: float

    def scaled(self, share: float) -> Limit:
        """This share of the bucket (both figures), for a part of the traffic that spends it."""
        fraction = min(1.0, max(0.0, share))
        return Limit(self.burst * fraction, self.refill_per_second * fraction)


class TokenBucket:
    """A bucket's tokens at one moment; ``level`` brings them to another (never past the burst)."""

    def __init__(self, limit: Limit, now: float) -> None:
        self.limit = limit
        self.tokens = float(limit.burst)
        self.stamp = now

    def level(self, now: float) -> float:
        """Tokens held at ``now`` (not recorded); below zero while a reservation is owed."""
        refilled = self.tokens + (now - self.stamp) * self.limit.refill_per_second
        return min(float(self.limit.burst), refilled)

    def full(self, now: float) -> bool:
        return self.level(now) >= self.limit.burst

    def advance(self, now: float) -> float:
        """Bring the bucket to ``now``; the tokens it holds then."""
        self.tokens, self.stamp = self.level(now), now
        return self.tokens

    def take(self, now: float) -> bool:
        """Spend one token at ``now`` if there is one (a refused request spends none)."""
        if self.advance(now) < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def reserve(self, now: float) -> float:
        """Spend the next token, waiting for it if need be: the seconds to wait from ``now``."""
        tokens = self.advance(now)
        delay = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.limit.refill_per_second
        self.tokens, self.stamp = tokens + delay * self.limit.refill_per_second - 1.0, now + delay
        return delay
