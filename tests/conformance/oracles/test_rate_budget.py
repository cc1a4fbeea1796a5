"""The declared bucket's floor at a request's arrival, from send and answer times alone; the token
bucket both the pacer and the ledger use; each process's allowance of a bucket."""

from __future__ import annotations

import pytest

from conformance.oracles.rate_budget import Window, early_refusal, floor_tokens
from conformance.traffic.pacing import SHARE, Allowance
from conformance.traffic.token_bucket import Limit, TokenBucket

LIMIT = Limit(burst=60, refill_per_second=30)


def _spread(count: int, seconds: float, latency: float, start: float = 0.0) -> list[Window]:
    step = seconds / count
    return [Window(start + n * step, start + n * step + latency) for n in range(count)]


def test_a_refusal_inside_the_burst_leaves_tokens_in_the_floor() -> None:
    windows = _spread(40, 0.1, 0.002)
    naive = 60 + 30 * windows[39].sent - 39  # every earlier poll arrived and took a token
    assert naive - 1 <= floor_tokens(LIMIT, windows, 39, 0.0) <= naive
    early = early_refusal(LIMIT, windows, [39], 0.0)
    assert early is not None and early.tokens > 20


def test_a_refusal_after_the_burst_is_spent_is_not_early() -> None:
    windows = _spread(200, 1.0, 0.002)  # 200/s against 60 + 30/s: empty after about 0.35 s
    assert early_refusal(LIMIT, windows, list(range(80, 200)), 0.0) is None


def test_a_slow_answer_only_makes_the_floor_more_lenient() -> None:
    """50/s against 60 + 30/s: poll 70 finds a correct bucket with tokens, unless its answer came
    so late that every later poll may have arrived before it."""
    fast = _spread(200, 4.0, 0.002)
    slow = _spread(200, 4.0, 4.0)
    assert floor_tokens(LIMIT, slow, 70, 0.0) < floor_tokens(LIMIT, fast, 70, 0.0)
    assert early_refusal(LIMIT, fast, [70], 0.0) is not None
    assert early_refusal(LIMIT, slow, [70], 0.0) is None


def test_arrivals_bunched_after_the_sends_are_accounted_for() -> None:
    """Sent one by one over 2 s at 30/s (within the refill), all answered at 2.0 s: they may all
    have arrived in the last instant, so a refusal of the last says nothing."""
    windows = [Window(n / 30, 2.0) for n in range(60)] + [Window(2.0, 2.01)]
    assert floor_tokens(LIMIT, windows, 60, 0.0) < 2.0


def test_the_bucket_reserves_ahead_and_refills_to_the_burst() -> None:
    bucket = TokenBucket(Limit(2, 10), now=0.0)
    assert [bucket.reserve(0.0) for _ in range(3)] == pytest.approx([0.0, 0.0, 0.1])
    assert bucket.take(0.1) is False  # the reservation owes the token refilled by 0.1 s
    assert bucket.level(10.0) == 2 and bucket.full(10.0)


def test_an_allowance_is_worked_out_once_for_pacing_and_ledger() -> None:
    own = Allowance.of(LIMIT, shared=False, workers=4)
    assert own.paced == LIMIT.scaled(SHARE) and own.left == LIMIT
    shared = Allowance.of(LIMIT, shared=True, workers=4)
    assert shared.paced == LIMIT.scaled(SHARE / 4)
    assert shared.left == LIMIT.scaled(1 - SHARE * 3 / 4)  # the others' paced shares taken out
