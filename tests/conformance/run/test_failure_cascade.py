"""A cascade is one screen (issue 39): failures of one cause (a refused set-up step answered 409
in sixty tests, each with its own name in the answer) read as one block with the count; failures
of other causes keep their blocks, and every failure comes back for the counts and reports."""

from __future__ import annotations

import pytest

from conformance.run.failure_view import _SHORT, CASCADE, cause_of, fold_cascades


def _failed(name: str, rule: str, received: str) -> pytest.TestReport:
    report = pytest.TestReport(
        f"conformance/stages/scenarios/test_x.py::{name}",
        ("test_x.py", 1, name),
        {},
        "failed",
        f"Rule broken: CFG-CREATE-NEW-ID (spec 4.1): {rule}\nExpected: a 2xx\nReceived: {received}",
        "call",
    )
    setattr(report, _SHORT, True)
    return report


def test_sixty_failures_of_one_cause_read_as_one_block() -> None:
    refused = [
        _failed(
            f"test_{n}", "the target did not let the suite create", f"HTTP 409 name cf-ab-x-{n}"
        )
        for n in range(60)
    ]
    other = _failed("test_other", "the ETag is not the hash", "ETag 'x'")
    failed = [*refused, other]
    hidden = fold_cascades(failed)
    assert len(hidden) == 59 and failed == [refused[0], other]
    assert "the same cause failed 59 more tests: test_1, test_2" in str(refused[0].longrepr)
    assert "and 54 more" in str(refused[0].longrepr)
    assert "same cause" not in str(other.longrepr)


def test_fewer_than_a_cascade_keep_their_blocks() -> None:
    few = [_failed(f"t{n}", "rule", f"HTTP 500 at {n}") for n in range(CASCADE - 1)]
    failed = list(few)
    assert fold_cascades(failed) == [] and failed == few


def test_a_cause_makes_names_and_numbers_alike_but_not_the_rule() -> None:
    one, two = _failed("a", "r", "HTTP 409 cf-1-x-1"), _failed("b", "r", "HTTP 409 cf-1-x-2")
    assert cause_of(one) == cause_of(two)
    assert cause_of(one) != cause_of(_failed("c", "another rule", "HTTP 409 cf-1-x-1"))
