"""The token bucket both the pacer and the ledger use, and each process's allowance of a bucket
(``conformance.traffic.token_bucket``, ``conformance.traffic.pacing``)."""

from __future__ import annotations

import pytest

from conformance.traffic.pacing import SHARE, Allowance
from conformance.traffic.token_bucket import Limit, TokenBucket

LIMIT = Limit(burst=60, refill_per_second=30)


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
