"""The level a run judges a convention at, walked over every ``basis: convention`` requirement
and every stage that judges it: undeclared, a failing record folds to not-applicable and one
drop-in difference; declared (``conventions: production`` or a declaring key), to a fail."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conformance.catalogue.requirements import Requirement, load_catalogue
from conformance.report import json_report, markdown_report
from conformance.report.levels import by_key, drop_in_phrase
from conformance.report.model import Report
from conformance.run.run_report import report_for_run
from conformance.verdict.evidence import Evidence
from conformance.verdict.levels import UNDECLARED_NOTE
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord
from conformance.verdict.run_verdict import Verdict

CONVENTIONS = [r for r in load_catalogue() if r.basis == "convention"]
CASES = [pytest.param(r, stage, id=f"{r.id}-{stage}") for r in CONVENTIONS for stage in r.stages]
CURL = "curl -sS 'http://127.0.0.1:1/sdk/v2/status'"


def failing(requirement: Requirement, stage: str, outcome: Outcome = Outcome.FAIL) -> TestRecord:
    """A record of one test of ``stage`` that failed ``requirement`` with its evidence."""
    test_id = f"{stage}::test_of_{requirement.id.lower()}"
    evidence = Evidence(
        test_id=test_id,
        requirement_ids=(requirement.id,),
        title="the convention broken",
        expected="what the convention says",
        received=f"what the target did ({stage})",
        curl=CURL,
    )
    return TestRecord(
        test_id=test_id,
        stage=stage,
        requirement_ids=(requirement.id,),
        outcomes={requirement.id: outcome},
        message="failed",
        evidence=evidence if outcome is Outcome.FAIL else None,
    )


def report(
    record: TestRecord, *, production: bool, declares: frozenset[str] = frozenset()
) -> Report:
    return report_for_run(
        [record],
        {"profile": {}},
        {*record.requirement_ids},
        started_at="2026-11-29T00:00:00Z",
        duration_s=0.0,
        production=production,
        declares=lambda key: production or key in declares,
    )


def test_there_are_conventions_to_walk() -> None:
    assert len(CONVENTIONS) >= 9
    assert {"scenarios", "fuzz", "client", "load"} <= {s for r in CONVENTIONS for s in r.stages}


@pytest.mark.parametrize(("requirement", "stage"), CASES)
def test_an_undeclared_convention_fails_only_at_the_drop_in_level(
    requirement: Requirement, stage: str
) -> None:
    found = report(failing(requirement, stage), production=False)
    (result,) = found.requirements
    assert result.outcome is Outcome.NOT_APPLICABLE
    assert result.note.endswith(UNDECLARED_NOTE)
    assert result.evidence == ()
    # one difference per key that would declare it (none: the whole ``conventions``)
    keys = requirement.declared_by or ("conventions",)
    assert tuple(d.key for d in result.differences) == keys
    for difference in result.differences:
        assert difference.convention == requirement.convention
        assert difference.received == f"what the target did ({stage})"
        assert difference.curl == CURL
        assert difference.requirement_ids == (requirement.id,)
    assert found.verdict is Verdict.CONFORMANT
    assert found.drop_in_verdict is Verdict.NOT_CONFORMANT
    assert [t.outcome for t in found.tests] == [Outcome.NOT_APPLICABLE]
    # the JSON file says the same: what `conformance report` and `conformance diff` read back
    again = json_report.loads(json_report.dumps(found))
    assert again.requirements == found.requirements
    assert again.drop_in_verdict is Verdict.NOT_CONFORMANT


@pytest.mark.parametrize(("requirement", "stage"), CASES)
def test_a_declared_convention_is_an_interface_failure(
    requirement: Requirement, stage: str
) -> None:
    found = report(failing(requirement, stage), production=True)
    (result,) = found.requirements
    assert result.outcome is Outcome.FAIL
    assert result.differences == ()
    assert [e.received for e in result.evidence] == [f"what the target did ({stage})"]
    assert found.verdict is Verdict.NOT_CONFORMANT


@pytest.mark.parametrize("outcome", [Outcome.PASS, Outcome.NOT_CONFIGURED, Outcome.UNSUPPORTED])
def test_a_pass_or_a_declared_exception_is_left_as_it_is(outcome: Outcome) -> None:
    requirement = CONVENTIONS[0]
    found = report(failing(requirement, requirement.stages[0], outcome), production=False)
    (result,) = found.requirements
    assert result.outcome is outcome
    assert result.differences == ()


def test_an_undeclared_convention_not_measured_is_not_an_interface_gap() -> None:
    """Not measured (its premise absent, say no Retry-After to wait out): not an interface
    requirement, so not-applicable, with the reason kept; declared, it stays not measurable."""
    requirement = CONVENTIONS[0]
    record = replace(
        failing(requirement, requirement.stages[0], Outcome.NOT_MEASURABLE),
        note={requirement.id: "no Retry-After to wait out"},
    )
    (result,) = report(record, production=False).requirements
    assert result.outcome is Outcome.NOT_APPLICABLE
    assert result.differences == ()
    assert result.note.endswith(f"{UNDECLARED_NOTE}; not measured: no Retry-After to wait out")
    (declared,) = report(record, production=True).requirements
    assert declared.outcome is Outcome.NOT_MEASURABLE


def test_the_retry_after_key_declares_it_alone() -> None:
    requirement = load_catalogue()["LIMIT-RATE-429-RETRY-AFTER"]
    record = failing(requirement, "load")
    (declared,) = report(
        record, production=False, declares=frozenset({"rate_limit.retry_after"})
    ).requirements
    assert declared.outcome is Outcome.FAIL
    (other,) = report(
        record, production=False, declares=frozenset({"rate_limit.burst"})
    ).requirements
    assert other.outcome is Outcome.NOT_APPLICABLE


def test_a_declaring_key_written_makes_it_an_interface_rule() -> None:
    requirement = replace(CONVENTIONS[0], declared_by=("rate_limit.scope",))
    assert requirement.declared_under(False, lambda key: key == "rate_limit.scope")
    assert not requirement.declared_under(False, lambda key: key == "rate_limit.burst")
    assert requirement.declared_under(True, lambda key: False)
    stated = load_catalogue()["CFG-CREATE-NEW-ID"]
    assert stated.declared_under(False, lambda key: False)  # any other basis: the interface


def test_the_reports_name_the_convention_and_its_key() -> None:
    requirement = load_catalogue()["LIMIT-RATE-429-RETRY-AFTER"]
    found = report(failing(requirement, "scenarios"), production=False)
    (entry,) = by_key(found)
    assert (entry.key, entry.convention) == ("rate_limit.retry_after", requirement.convention)
    assert drop_in_phrase(found) == (
        "not drop-in compatible: 1 convention differs (rate_limit.retry_after)"
    )
    only_production = load_catalogue()["ERR-BODY-JSON"]  # no key declares it alone
    production_only = report(failing(only_production, "scenarios"), production=False)
    assert drop_in_phrase(production_only) == (
        "not drop-in compatible: 1 convention differs (conventions (ERR-BODY-JSON))"
    )
    text = markdown_report.render(found)
    assert requirement.convention is not None and requirement.convention in text


def test_two_conventions_only_production_declares_are_two_differences() -> None:
    """Both keyed ``conventions``, each keeps its own phrase in the by-key view."""
    catalogue = load_catalogue()
    first, second = catalogue["LIMIT-RATE-429-RETRY-AFTER"], catalogue["ERR-BODY-JSON"]
    found = report_for_run(
        [failing(first, "scenarios"), failing(second, "scenarios")],
        {"profile": {}},
        {first.id, second.id},
        started_at="2026-11-29T00:00:00Z",
        duration_s=0.0,
    )
    entries = by_key(found)
    assert [(e.convention, e.requirement_ids) for e in entries] == [
        (second.convention, (second.id,)),
        (first.convention, (first.id,)),
    ]
    assert drop_in_phrase(found).startswith("not drop-in compatible: 2 conventions differ")


@pytest.mark.parametrize(("requirement", "stage"), CASES)
def test_a_breakdown_is_evidence_at_every_level(requirement: Requirement, stage: str) -> None:
    """Undeclared, yet the test met a 5xx (or no answer): the failure stands at the interface
    level, with no difference listed for it."""
    broke = replace(failing(requirement, stage), breakdown="the target answered with a 5xx")
    found = report(broke, production=False)
    (result,) = found.requirements
    assert result.outcome is Outcome.FAIL
    assert "breakdown" in result.note and "5xx" in result.note
    assert result.differences == ()
    assert found.verdict is Verdict.NOT_CONFORMANT
    again = TestRecord.from_json(broke.to_json())  # it crosses the workers' wire
    assert again.breakdown == broke.breakdown


def test_the_suites_5xx_and_silences_are_breakdowns() -> None:
    from conformance.errors import BREAKDOWNS, NoAnswer, ServerError
    from conformance.verdict.classification import classify

    for kind in (ServerError, NoAnswer):
        error = kind((), "the target answered GET /sdk/v2/status with a server error", "", "")
        assert isinstance(error, BREAKDOWNS)
        record = classify("t", "scenarios", ("CFG-RECORD-DELETED-AT-LIVE",), error, failed=True)
        assert record.breakdown == error.title
    plain = classify("t", "scenarios", ("X",), AssertionError("no"), failed=True)
    assert plain.breakdown == ""
