"""conformance diff: newly failing, no longer passing, newly passing and changed outcomes; exit 1
on a new failure or on a requirement that stops passing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conformance.report.diff import OutcomeChange, diff_reports, format_diff
from conformance.report.model import Report, RequirementResult
from conformance.verdict.outcome import Outcome
from tests.support import sample_reports as samples


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
    assert diff.no_longer_passing == (
        OutcomeChange("LIMIT-LOAD-SHED-POLLING", Outcome.PASS, Outcome.NOT_MEASURABLE),
        OutcomeChange("VER-LEGACY-SDK-KEY", Outcome.PASS, Outcome.UNSUPPORTED),
    )
    assert diff.changed == ()
    assert diff.newly_passing == ()
    assert diff.exit_code == 1
    text = format_diff(diff)
    assert "Verdict: conformant -> not-conformant" in text
    assert "Newly failing (2):\n  CFG-PATCH-409-STALE: pass -> fail" in text


def test_fix_is_newly_passing_and_exits_0() -> None:
    diff = diff_reports(samples.not_conformant(), samples.conformant())
    assert [c.requirement_id for c in diff.newly_passing] == [
        "CFG-PATCH-409-STALE",
        "LIMIT-LOAD-SHED-POLLING",
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


def test_pass_turning_not_measurable_is_a_regression_and_exits_1() -> None:
    old = samples.conformant()
    new = with_outcomes(old, {"SDK-STATUS-ETAG": Outcome.NOT_MEASURABLE})
    diff = diff_reports(old, new)
    assert diff.newly_failing == ()
    assert diff.no_longer_passing == (
        OutcomeChange("SDK-STATUS-ETAG", Outcome.PASS, Outcome.NOT_MEASURABLE),
    )
    assert diff.exit_code == 1
    text = format_diff(diff)
    assert "Verdict: conformant -> incomplete" in text
    assert "No longer passing (1):\n  SDK-STATUS-ETAG: pass -> not-measurable" in text
    assert diff_reports(new, old).exit_code == 0  # measured again, and passing


@pytest.mark.parametrize("outcome", [o for o in Outcome if o not in (Outcome.PASS, Outcome.FAIL)])
def test_pass_turning_into_anything_but_pass_exits_1(outcome: Outcome) -> None:
    old = samples.conformant()
    diff = diff_reports(old, with_outcomes(old, {"EXP-LIST": outcome}))
    assert diff.regressions == (OutcomeChange("EXP-LIST", Outcome.PASS, outcome),)
    assert diff.exit_code == 1


def test_a_change_between_two_unmeasured_outcomes_is_not_a_regression() -> None:
    old = with_outcomes(samples.conformant(), {"EXP-LIST": Outcome.NOT_MEASURABLE})
    new = with_outcomes(samples.conformant(), {"EXP-LIST": Outcome.NOT_CONFIGURED})
    diff = diff_reports(old, new)
    assert diff.changed == (
        OutcomeChange("EXP-LIST", Outcome.NOT_MEASURABLE, Outcome.NOT_CONFIGURED),
    )
    assert diff.exit_code == 0
