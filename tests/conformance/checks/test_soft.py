"""``IndependentChecks``: a recorded break is never lost, whatever else ends the block."""

from __future__ import annotations

import pytest

from conformance.checks import IndependentChecks
from conformance.errors import ContractViolation, NotMeasurable
from conformance.verdict.classification import classify
from conformance.verdict.outcome import Outcome

IDS = ["A", "B", "C", "D"]


def test_a_later_not_measurable_call_keeps_the_recorded_break() -> None:
    unmeasured = NotMeasurable("the suite's own traffic spent the bucket")
    with pytest.raises(ContractViolation) as caught, IndependentChecks() as independent:
        independent.check(False, ["A"], "first rule", "x1", "y1")
        independent.check(True, ["B"], "held rule", "x2", "y2")
        raise unmeasured
    assert caught.value.__cause__ is unmeasured
    record = classify("t", "scenarios", IDS, caught.value, failed=True)
    assert record.outcomes == {
        "A": Outcome.FAIL,
        "B": Outcome.PASS,
        "C": Outcome.NOT_MEASURABLE,
        "D": Outcome.NOT_MEASURABLE,
    }
    assert record.evidence is not None and record.evidence.title == "first rule"


def test_a_violation_in_flight_joins_the_recorded_ones() -> None:
    with pytest.raises(ContractViolation) as caught, IndependentChecks() as independent:
        independent.check(False, ["A"], "first rule", "x1", "y1")
        independent.check(True, ["B"], "held rule", "x2", "y2")
        raise ContractViolation(["C"], "third rule", "x3", "y3")
    record = classify("t", "scenarios", IDS, caught.value, failed=True)
    assert record.outcomes == {
        "A": Outcome.FAIL,
        "B": Outcome.PASS,
        "C": Outcome.FAIL,
        "D": Outcome.NOT_MEASURABLE,
    }
    assert caught.value.title == "first rule; third rule"


def test_a_whole_test_violation_in_flight_fails_every_id() -> None:
    """The client's own violations (no answer, a 5xx) name no id: all of the test's ids."""
    with pytest.raises(ContractViolation) as caught, IndependentChecks() as independent:
        independent.check(False, ["A"], "first rule", "x1", "y1")
        raise ContractViolation((), "the target did not answer", "an answer", "a reset")
    record = classify("t", "scenarios", IDS, caught.value, failed=True)
    assert set(record.outcomes.values()) == {Outcome.FAIL}


def test_without_a_recorded_break_the_error_in_flight_is_untouched() -> None:
    unmeasured = NotMeasurable("not measurable")
    with pytest.raises(NotMeasurable) as caught, IndependentChecks() as independent:
        independent.check(True, ["A"], "held rule", "x", "y")
        raise unmeasured
    assert caught.value is unmeasured


def test_a_crash_of_the_suite_propagates_unchanged() -> None:
    with pytest.raises(KeyError), IndependentChecks() as independent:
        independent.check(False, ["A"], "first rule", "x1", "y1")
        raise KeyError("suite bug")
