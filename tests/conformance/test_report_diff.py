"""conformance diff: newly passing, newly failing and changed outcomes; exit 1 on a new failure."""

from __future__ import annotations

from dataclasses import replace

from conformance.report import samples
from conformance.report.diff import OutcomeChange, diff_reports, format_diff
from conformance.report.model import Outcome, Report, RequirementResult


def with_outcomes(report: Report, outcomes: dict[str, Outcome]) -> Report:
    return replace(
        report,
        requirements=tuple(
            replace(r, outcome=outcomes.get(r.id, r.outcome)) for r in report.requirements
        ),
    )


def test_identical_reports_do_not_differ() -> None:
    diff = diff_reports(samples.not_conformant(), samples.not_conformant())
    assert diff.unchanged
    assert diff.exit_code == 0
    assert "No requirement changed outcome." in format_diff(diff)


def test_regression_is_newly_failing_and_exits_1() -> None:
    diff = diff_reports(samples.conformant(), samples.not_conformant())
    assert diff.newly_failing == (
        OutcomeChange("CFG-PATCH-409-STALE", Outcome.PASS, Outcome.FAIL),
        OutcomeChange("SDK-STATUS-304-IF-NONE-MATCH", Outcome.PASS, Outcome.FAIL),
    )
    assert diff.changed == (OutcomeChange("VER-LEGACY-SDK-KEY", Outcome.PASS, Outcome.UNSUPPORTED),)
    assert diff.newly_passing == ()
    assert diff.exit_code == 1
    text = format_diff(diff)
    assert "Verdict: conformant -> not-conformant" in text
    assert "Newly failing (2):\n  CFG-PATCH-409-STALE: pass -> fail" in text


def test_fix_is_newly_passing_and_exits_0() -> None:
    diff = diff_reports(samples.not_conformant(), samples.conformant())
    assert [c.requirement_id for c in diff.newly_passing] == [
        "CFG-PATCH-409-STALE",
        "SDK-STATUS-304-IF-NONE-MATCH",
        "VER-LEGACY-SDK-KEY",
    ]
    assert diff.exit_code == 0


def test_known_failure_turning_into_fail_is_newly_failing() -> None:
    old = with_outcomes(samples.conformant(), {"SDK-STATUS-ETAG": Outcome.KNOWN_FAILURE})
    new = with_outcomes(samples.conformant(), {"SDK-STATUS-ETAG": Outcome.FAIL})
    diff = diff_reports(old, new)
    assert diff.newly_failing == (
        OutcomeChange("SDK-STATUS-ETAG", Outcome.KNOWN_FAILURE, Outcome.FAIL),
    )
    assert diff.exit_code == 1


def test_still_failing_is_not_newly_failing() -> None:
    diff = diff_reports(samples.not_conformant(), samples.not_conformant())
    assert diff.newly_failing == ()


def test_added_and_removed_requirements() -> None:
    old = samples.conformant()
    added_fail = RequirementResult("NEW-REQ", "9", "new", "stated", Outcome.FAIL, ("t",))
    added_skip = RequirementResult("NEW-SKIP", "9", "new", "stated", Outcome.UNSUPPORTED, ("t",))
    new = replace(old, requirements=(*old.requirements[1:], added_fail, added_skip))
    diff = diff_reports(old, new)
    assert diff.newly_failing == (OutcomeChange("NEW-REQ", None, Outcome.FAIL),)
    assert OutcomeChange("NEW-SKIP", None, Outcome.UNSUPPORTED) in diff.changed
    assert OutcomeChange("CFG-CREATE-RECORD", Outcome.PASS, None) in diff.changed
    assert "CFG-CREATE-RECORD: pass -> (absent)" in format_diff(diff)
