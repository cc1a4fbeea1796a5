"""Outcome mapping and folding: a skip is never a pass, baselines are applied and do not rot."""

from __future__ import annotations

from conformance.errors import ContractViolation, NotMeasurable, Unsupported
from conformance.outcomes import RequirementInfo, TestRecord, classify, fold
from conformance.report.model import Outcome


def info(*ids: str) -> list[RequirementInfo]:
    return [RequirementInfo(i, "4.3", f"text of {i}", "stated") for i in ids]


def test_pass_marks_every_id() -> None:
    record = classify("t", "scenarios", ["A", "B"], None, failed=False)
    assert record.outcomes == {"A": Outcome.PASS, "B": Outcome.PASS}


def test_violation_fails_only_its_ids() -> None:
    error = ContractViolation(["B"], "title", "x", "y", "curl ...")
    record = classify("t", "scenarios", ["A", "B"], error, failed=True)
    assert record.outcomes == {"A": Outcome.NOT_MEASURABLE, "B": Outcome.FAIL}
    assert record.evidence is not None and record.evidence.curl == "curl ..."


def test_soft_checks_keep_the_ids_that_held() -> None:
    error = ContractViolation(["B"], "title", "x", "y")
    error.passed_ids = ("A",)
    record = classify("t", "scenarios", ["A", "B", "C"], error, failed=True)
    assert record.outcomes == {
        "A": Outcome.PASS,
        "B": Outcome.FAIL,
        "C": Outcome.NOT_MEASURABLE,
    }


def test_plain_failure_fails_every_id() -> None:
    record = classify("t", "scenarios", ["A", "B"], KeyError("x"), failed=True)
    assert set(record.outcomes.values()) == {Outcome.FAIL}


def test_not_measurable_and_unsupported_and_skip_are_never_pass() -> None:
    unmeasured = classify("t", "s", ["A"], NotMeasurable("no trigger"), failed=False)
    unsupported = classify("t", "s", ["A", "B"], Unsupported("bootstrap", ["A"]), failed=False)
    skipped = classify("t", "s", ["A"], Exception("skip"), failed=False)
    assert unmeasured.outcomes == {"A": Outcome.NOT_MEASURABLE}
    assert unsupported.outcomes == {"A": Outcome.UNSUPPORTED, "B": Outcome.NOT_MEASURABLE}
    assert skipped.outcomes == {"A": Outcome.NOT_MEASURABLE}


def test_partial_not_measurable_keeps_checked_passes() -> None:
    error = NotMeasurable("no bootstrap during load", ["B"], passed=["A"])
    record = classify("t", "s", ["A", "B"], error, failed=False)
    assert record.outcomes == {"A": Outcome.PASS, "B": Outcome.NOT_MEASURABLE}


def test_records_survive_json() -> None:
    error = ContractViolation(["A"], "title", "x", "y", "curl")
    record = classify("t", "s", ["A"], error, failed=True)
    again = TestRecord.from_json(record.to_json())
    assert again.outcomes == record.outcomes
    assert again.evidence == record.evidence


def test_fold_takes_the_worst_and_reports_untested_as_not_measurable() -> None:
    records = [
        classify("t1", "s", ["A"], None, failed=False),
        classify("t2", "s", ["A"], ContractViolation(["A"], "t", "x", "y"), failed=True),
        classify("t3", "s", ["B"], None, failed=False),
    ]
    results = {r.id: r for r in fold(records, info("A", "B", "C"))}
    assert results["A"].outcome is Outcome.FAIL
    assert results["A"].tests == ("t1", "t2")
    assert len(results["A"].evidence) == 1
    assert results["B"].outcome is Outcome.PASS
    assert results["C"].outcome is Outcome.NOT_MEASURABLE
    assert "no executed test" in results["C"].note


def test_baseline_turns_failure_into_known_failure_and_flags_recoveries() -> None:
    records = [
        classify("t1", "s", ["A"], ContractViolation(["A"], "t", "x", "y"), failed=True),
        classify("t2", "s", ["B"], None, failed=False),
    ]
    baseline = {"A": "TICKET-1", "B": "TICKET-2"}
    results = {r.id: r for r in fold(records, info("A", "B"), baseline)}
    assert results["A"].outcome is Outcome.KNOWN_FAILURE
    assert "TICKET-1" in results["A"].note
    assert results["B"].outcome is Outcome.PASS
    assert "now passes" in results["B"].note
