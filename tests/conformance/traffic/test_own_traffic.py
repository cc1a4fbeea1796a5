"""The ledger of the suite's own traffic: a replay through the declared bucket, with its figure;
the one judge of a 429 over it, and the one way to tell an SDK call from a management call."""

from __future__ import annotations

from conformance.traffic.call_kind import CallKind, call_kind, is_sdk_path
from conformance.traffic.ledger import MARGIN_TOKENS, Ledger, Refusal, judge_429
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


def test_the_judge_of_a_429_excuses_only_the_suites_own_excess() -> None:
    """No 429: nothing to judge; no replay: nothing excuses it; a replay the suite kept within
    the bucket: the target's fault; one the suite emptied: its own doing."""
    ledger = Ledger()
    within = ledger.record("j", LIMIT, at=0.0)
    for _ in range(LIMIT.burst):
        over = ledger.record("j", LIMIT, at=0.0)
    assert judge_429(200, over) is None and judge_429(503, None) is None
    assert judge_429(429, None) is Refusal.UNACCOUNTED
    assert judge_429(429, within) is Refusal.UNPROVOKED
    assert judge_429(429, over) is Refusal.OWN
    # errors.rate_limited_status declared 503: that status is the refusal, 429 no longer is
    assert judge_429(503, within, 503) is Refusal.UNPROVOKED
    assert judge_429(503, over, 503) is Refusal.OWN
    assert judge_429(429, within, 503) is None


def test_a_path_is_an_sdk_call_a_management_call_or_neither() -> None:
    assert call_kind("/sdk/v2/status") is CallKind.SDK and is_sdk_path("/sdk/v2/bootstrap")
    assert call_kind("/application/{applicationId}/v2/configuration") is CallKind.MANAGEMENT
    assert call_kind("/application/7/v2/experiments") is CallKind.MANAGEMENT
    assert call_kind("/health") is None and not is_sdk_path("/application/7/v2/configuration")
