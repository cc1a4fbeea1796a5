"""The ledger of the suite's own traffic: a replay through the declared bucket, with its figure."""

from __future__ import annotations

from conformance.traffic.ledger import MARGIN_TOKENS, Ledger
from conformance.traffic.token_bucket import Limit

LIMIT = Limit(burst=10, refill_per_second=5)


def test_paced_traffic_never_counts_as_the_suites_excess() -> None:
    ledger = Ledger()
    replays = [ledger.record("b", LIMIT, at=n / 2.5) for n in range(100)]  # half the refill
    assert not any(r.suite_exceeded for r in replays)
    assert replays[-1].tokens >= LIMIT.burst - 1


def test_a_burst_beyond_the_declared_bucket_is_the_suites_excess() -> None:
    ledger = Ledger()
    replays = [ledger.record("b", LIMIT, at=0.0) for _ in range(12)]
    assert [r.suite_exceeded for r in replays].index(True) == LIMIT.burst - int(MARGIN_TOKENS)
    assert replays[-1].sent == 12
    assert "the suite sent 12 request(s)" in replays[-1].describe()
    assert "burst 10, refill 5/s" in replays[-1].describe()


def test_a_bucket_refilled_to_full_forgets_what_came_before() -> None:
    ledger = Ledger()
    for _ in range(10):
        ledger.record("b", LIMIT, at=0.0)
    again = ledger.record("b", LIMIT, at=LIMIT.burst / LIMIT.refill_per_second)
    assert again.sent == 1 and again.tokens == LIMIT.burst


def test_buckets_are_apart_and_a_shared_one_is_narrowed() -> None:
    ledger = Ledger()
    for _ in range(9):
        ledger.record("one", LIMIT, at=0.0)
    assert not ledger.record("other", LIMIT, at=0.0).suite_exceeded
    narrowed = LIMIT.scaled(0.5)  # others may have spent half
    assert (narrowed.burst, narrowed.refill_per_second) == (5, 2.5)
    assert [ledger.record("shared", narrowed, at=0.0).suite_exceeded for _ in range(5)][-1]
