"""A test's findings concluded: what they raise reads back, per requirement, as they said."""

from __future__ import annotations

import pytest

from conformance.errors import ContractViolation, NotApplicable, NotConfigured, NotMeasurable
from conformance.verdict.classification import classify
from conformance.verdict.conclusion import conclude, spec_sections
from conformance.verdict.finding import (
    EVERY,
    Finding,
    failed,
    not_applicable,
    passed,
    unconfigured,
    unmeasured,
)
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord


def concluded(ids: tuple[str, ...], findings: list[Finding]) -> TestRecord:
    try:
        conclude(findings, sections=("4.3",))
    except (ContractViolation, NotMeasurable, NotApplicable) as error:
        return classify("t", "client", ids, error, failed=isinstance(error, ContractViolation))
    return classify("t", "client", ids, None, failed=False)


def test_each_requirement_takes_its_own_finding() -> None:
    record = concluded(
        ("A", "B", "C", "D"),
        [
            passed("A", "held"),
            failed("B", "broke", "x", "y"),
            unmeasured("C", "no trigger"),
            passed("B", "also seen"),
        ],
    )
    assert record.outcomes == {
        "A": Outcome.PASS,
        "B": Outcome.FAIL,
        "C": Outcome.NOT_MEASURABLE,
        "D": Outcome.NOT_MEASURABLE,
    }
    evidence = record.evidence_for("B")
    assert evidence is not None and evidence.requirement_ids == ("B",)
    assert evidence.expected == "x" and evidence.received == "y"


def test_unmeasured_ids_name_their_reason_and_passes_hold() -> None:
    record = concluded(("A", "C"), [passed("A"), unmeasured("C", "no trigger")])
    assert record.outcomes == {"A": Outcome.PASS, "C": Outcome.NOT_MEASURABLE}
    assert record.note == {"C": "C: no trigger"}


def test_every_passed_raises_nothing() -> None:
    conclude([passed("A"), passed(EVERY)])


def test_a_finding_of_every_requirement_speaks_for_the_whole_test() -> None:
    ids = ("A", "B")
    record = concluded(ids, [failed(EVERY, "broke", "x", "y")])
    assert record.outcomes == dict.fromkeys(ids, Outcome.FAIL)
    assert record.message.startswith("Rule broken: (no requirement id) (spec 4.3): broke")
    assert concluded(ids, [unmeasured(EVERY, "short")]).note == dict.fromkeys(ids, "short")


def test_not_configured_names_its_profile_key() -> None:
    with pytest.raises(NotConfigured) as raised:
        conclude([unconfigured(EVERY, "load.x", "the profile declares no x")])
    record = classify("t", "load", ("A",), raised.value, failed=False)
    assert record.outcomes == {"A": Outcome.NOT_CONFIGURED}
    assert record.note == {"A": "not configured: the profile declares no x (load.x)"}


def test_a_failure_outweighs_its_own_ids_other_findings() -> None:
    record = concluded(("A",), [unmeasured("A", "short"), failed("A", "broke", "x", "y")])
    assert record.outcomes == {"A": Outcome.FAIL}


def test_a_convention_failure_cites_no_spec_section() -> None:
    """A client's backoff is a production convention: its failure names no spec section; a
    stated client rule's failure names its own section (not a blanket "spec 4.3, 8")."""

    def rendered(requirement: str) -> str:
        with pytest.raises(ContractViolation) as raised:
            conclude([failed(requirement, "broke", "x", "y")], sections_of=spec_sections)
        return raised.value.render()

    assert "(spec" not in rendered("POLL-CLIENT-BACKOFF")
    assert "(spec" not in rendered("POLL-CLIENT-RETRY-AFTER")
    assert "POLL-CLIENT-SEND-LAST-HASH (spec 4.3)" in rendered("POLL-CLIENT-SEND-LAST-HASH")


def test_a_rule_whose_condition_never_arose_is_not_applicable_and_the_rest_holds() -> None:
    """A client that never sends the numeric header neither keeps nor breaks its bounds: that
    requirement is not applicable, never a pass without evidence; the others still pass."""
    record = concluded(
        ("A", "B"), [passed("A", "held"), not_applicable("B", "the client never sent it")]
    )
    assert record.outcomes == {"A": Outcome.PASS, "B": Outcome.NOT_APPLICABLE}
    assert "never sent" in record.note["B"] and "A" not in record.note
    failing = concluded(
        ("A", "B"), [failed("A", "broke", "x", "y"), not_applicable("B", "never sent")]
    )
    assert failing.outcomes["A"] == Outcome.FAIL and failing.outcomes["B"] != Outcome.PASS
