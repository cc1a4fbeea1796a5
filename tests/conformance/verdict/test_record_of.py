"""``record_of``: a test's findings folded into its record, each requirement at its worst."""

from __future__ import annotations

from conformance.verdict.evidence import Evidence
from conformance.verdict.finding import EVERY, Finding, doubted, failed, passed, unmeasured
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord, record_of


def test_each_requirement_takes_the_worst_of_its_findings_and_the_last_note() -> None:
    findings = [
        unmeasured("R-1", "nothing sent"),
        unmeasured("R-2", "nothing sent"),
        doubted("R-1", "broke", "a", "b", "only an inferred element"),
        failed("R-1", "broke", "a", "b"),
        passed("R-2"),
    ]
    record = record_of("t", "fuzz", ("R-1", "R-2", "R-3"), findings, message="m")
    assert record.outcomes == {
        "R-1": Outcome.FAIL,
        "R-2": Outcome.NOT_MEASURABLE,
        "R-3": Outcome.PASS,  # named by no finding
    }
    assert record.note == {"R-1": "only an inferred element", "R-2": "nothing sent"}
    assert (record.test_id, record.stage, record.message) == ("t", "fuzz", "m")


def test_a_requirement_only_a_finding_names_follows_the_tests_own_in_order() -> None:
    findings = [doubted("R-9", "x", "", "", "n"), failed("R-8", "x", "", ""), passed("R-9")]
    record = record_of("t", "fuzz", ("R-1",), findings)
    assert record.requirement_ids == ("R-1", "R-9", "R-8")
    assert record.outcomes == {"R-1": Outcome.PASS, "R-9": Outcome.SPEC_DOUBT, "R-8": Outcome.FAIL}


def test_a_finding_of_every_requirement_speaks_for_the_tests_own_only() -> None:
    findings = [passed("R-1"), doubted("R-7", "x", "", "", "n"), Finding(EVERY, Outcome.FAIL)]
    record = record_of("t", "fuzz", ("R-1", "R-2", "R-1"), findings)
    assert record.outcomes == {"R-1": Outcome.FAIL, "R-2": Outcome.FAIL, "R-7": Outcome.SPEC_DOUBT}


def test_evidence_and_differences_are_kept_as_given_and_the_record_round_trips() -> None:
    evidence = Evidence("t", ("R-1",), "broke", "a", "b", "curl x", check="c", seed=3)
    record = record_of(
        "t",
        "fuzz",
        ("R-1",),
        [failed("R-1", "broke", "a", "b")],
        duration_s=1.5,
        evidence=evidence,
        evidence_by_requirement={"R-1": evidence},
    )
    assert record.evidence_for("R-1") == evidence and record.duration_s == 1.5
    assert TestRecord.from_json(record.to_json()) == record
