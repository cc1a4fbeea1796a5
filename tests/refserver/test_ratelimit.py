"""refserver.ratelimit: token buckets (a fake clock, no sleeping)."""

from __future__ import annotations

from refserver.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_retry_after_then_refill() -> None:
    clock = Clock()
    limiter = RateLimiter(3, 2.0, clock=clock)
    assert [limiter.take("k", "i") for _ in range(3)] == [0, 0, 0]
    assert limiter.take("k", "i") == 1
    clock.now += 0.5  # one token back
    assert limiter.take("k", "i") == 0
    assert limiter.take("k", "i") >= 1


def test_buckets_are_per_key_and_instance() -> None:
    limiter = RateLimiter(1, 0.1, clock=Clock())
    assert limiter.take("k", "a") == 0
    assert limiter.take("k", "a") == 10
    assert limiter.take("k", "b") == 0
    assert limiter.take("other", "a") == 0


def test_refill_never_exceeds_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(2, 100.0, clock=clock)
    clock.now += 1000
    assert [limiter.take("k", "i") for _ in range(3)] == [0, 0, 1]
