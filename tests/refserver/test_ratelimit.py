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


def test_idle_buckets_are_forgotten_and_live_ones_kept() -> None:
    clock = Clock()
    limiter = RateLimiter(4, 2.0, clock=clock)  # empty to full in 2 s
    for n in range(100):
        limiter.take("k", f"idle-{n}")
    assert [limiter.take("k", "live") for _ in range(4)] == [0, 0, 0, 0]
    assert len(limiter) == 101
    clock.now += 1.9  # idle buckets (one token spent) are full again; "live" has 3.8 tokens
    assert limiter.take("k", "live") == 0
    assert len(limiter) == 1  # every idle one forgotten, the live one kept
    assert [limiter.take("k", "live") for _ in range(3)] == [0, 0, 1]  # 2.8 left, not 4


def test_a_forgotten_bucket_behaves_like_a_full_one() -> None:
    clock = Clock()
    limiter = RateLimiter(3, 1.0, clock=clock)
    assert [limiter.take("k", "a") for _ in range(3)] == [0, 0, 0]
    clock.now += 10  # "a" refills completely; the next call of anyone forgets it
    limiter.take("k", "other")
    assert len(limiter) == 1
    assert [limiter.take("k", "a") for _ in range(4)] == [0, 0, 0, 1]


def test_a_spent_bucket_is_not_forgotten_before_it_is_full() -> None:
    clock = Clock()
    limiter = RateLimiter(2, 1.0, clock=clock)
    assert [limiter.take("k", "a") for _ in range(2)] == [0, 0]
    clock.now += 1.5  # 1.5 tokens back, not full
    limiter.take("k", "b")
    assert len(limiter) == 2
    assert [limiter.take("k", "a") for _ in range(2)] == [0, 1]


def test_memory_is_bounded_even_without_idle_buckets() -> None:
    limiter = RateLimiter(5, 0.0, clock=Clock(), max_buckets=10)  # nothing ever refills
    for n in range(1000):
        limiter.take("k", f"caller-{n}")
    assert len(limiter) <= 10
    assert limiter.take("k", "caller-999") == 0  # the most recent callers are kept
