"""The declared bucket's floor at a request's arrival, from send and answer times alone
(``conformance.oracles.rate_budget``)."""

from __future__ import annotations

from conformance.oracles.rate_budget import Window, early_refusal, floor_tokens
from conformance.traffic.token_bucket import Limit

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
