"""Outcome mapping and folding: a skip is never a pass, baselines are applied and do not rot."""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

import conformance
from conformance import errors
from conformance.checks import IndependentChecks
from conformance.contract.document import contract_path
from conformance.errors import (
    ContractViolation,
    ConventionMiss,
    NotApplicable,
    NotConfigured,
    NotMeasurable,
    Unsupported,
)
from conformance.run.folding import RequirementInfo, fold
from conformance.run.run_report import report_for_run
from conformance.verdict.classification import classify, meaning
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord
from conformance.verdict.run_verdict import Verdict, verdict_of


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


# ------------------------------------------------------------------ evidence per requirement


def evidence(title: str, ids: tuple[str, ...], curl: str) -> Evidence:
    return Evidence("t", ids, title, "expected", "received", curl, check=title)


def fuzz_record(
    outcomes: dict[str, Outcome], first: Evidence, own: dict[str, Evidence] | None = None
) -> TestRecord:
    """A fuzz test's record: ``first`` as the test's evidence, ``own`` per requirement."""
    return TestRecord(
        "t", "fuzz", tuple(outcomes), outcomes, evidence=first, evidence_by_requirement=own or {}
    )


def test_two_requirements_of_one_test_each_show_their_own_evidence() -> None:
    first, second = evidence("check_a", ("A",), "curl a"), evidence("check_b", ("B",), "curl b")
    outcomes = {"A": Outcome.FAIL, "B": Outcome.FAIL, "C": Outcome.FAIL}
    record = fuzz_record(outcomes, first, {"A": first, "B": second})
    results = {r.id: r for r in fold([record], info("A", "B", "C"))}
    assert results["A"].evidence == (first,)
    assert results["B"].evidence == (second,)
    assert results["C"].evidence == (first,)  # no evidence of its own: the test's


def test_a_spec_doubt_carries_its_evidence() -> None:
    doubt = evidence("check_a (spec-doubt: not-shown)", ("A",), "curl a")
    record = fuzz_record({"A": Outcome.SPEC_DOUBT, "B": Outcome.PASS}, doubt, {"A": doubt})
    results = {r.id: r for r in fold([record], info("A", "B"))}
    assert results["A"].outcome is Outcome.SPEC_DOUBT
    assert results["A"].evidence == (doubt,)
    assert results["A"].evidence[0].curl == "curl a"
    assert results["B"].evidence == ()


def test_a_pass_or_unmeasured_requirement_shows_no_evidence() -> None:
    shown = evidence("check_a", ("A",), "curl a")
    record = fuzz_record({"A": Outcome.FAIL, "B": Outcome.NOT_MEASURABLE}, shown)
    results = {r.id: r for r in fold([record], info("A", "B"))}
    assert results["A"].evidence == (shown,)
    assert results["B"].evidence == ()


def test_soft_checks_give_each_broken_id_its_own_evidence() -> None:
    with pytest.raises(ContractViolation) as caught, IndependentChecks() as independent:
        independent.check(False, ["A"], "first rule", "x1", "y1")
        independent.check(True, ["B"], "held rule", "x2", "y2")
        independent.check(False, ["C"], "third rule", "x3", "y3")
    record = classify("t", "scenarios", ["A", "B", "C"], caught.value, failed=True)
    assert record.outcomes == {"A": Outcome.FAIL, "B": Outcome.PASS, "C": Outcome.FAIL}
    results = {r.id: r for r in fold([record], info("A", "B", "C"))}
    assert [(e.title, e.requirement_ids) for e in results["A"].evidence] == [("first rule", ("A",))]
    assert [(e.title, e.requirement_ids) for e in results["C"].evidence] == [("third rule", ("C",))]
    assert results["B"].evidence == ()
    assert record.evidence is not None and record.evidence.requirement_ids == ("A", "C")


def test_per_requirement_evidence_survives_json() -> None:
    first, second = evidence("check_a", ("A",), "curl a"), evidence("check_b", ("B",), "curl b")
    outcomes = {"A": Outcome.FAIL, "B": Outcome.SPEC_DOUBT}
    record = fuzz_record(outcomes, first, {"A": first, "B": second})
    again = TestRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert again.evidence_by_requirement == {"A": first, "B": second}
    assert again.evidence == first


# ------------------------------------------------------------------ not configured


def test_not_configured_names_the_profile_key_that_would_enable_it() -> None:
    error = NotConfigured("credentials.legacy_sdk_key", requirement_ids=["B"], passed=["A"])
    record = classify("t", "s", ["A", "B"], error, failed=False)
    assert record.outcomes == {"A": Outcome.PASS, "B": Outcome.NOT_CONFIGURED}
    assert record.note == {"B": "not configured: set credentials.legacy_sdk_key in the profile"}
    results = {r.id: r for r in fold([record], info("A", "B"))}
    assert results["B"].outcome is Outcome.NOT_CONFIGURED
    assert results["B"].note == "t: not configured: set credentials.legacy_sdk_key in the profile"


def test_a_not_configured_note_gives_the_tests_own_cause_and_its_key() -> None:
    """A key that is set but cannot serve (a foreign project with no configuration) is named
    with the cause, never as a key to set."""
    error = NotConfigured("credentials.sdk_keys", "no SDK key scoped to 'production'")
    record = classify("t", "s", ["A"], error, failed=False)
    assert record.note == {
        "A": "not configured: no SDK key scoped to 'production' (credentials.sdk_keys)"
    }
    assert "set credentials.sdk_keys" not in record.note["A"]


def test_an_unsupported_note_names_the_capability_key() -> None:
    record = classify("t", "s", ["A", "B"], Unsupported("bootstrap", ["A"]), failed=False)
    assert record.note == {
        "A": "unsupported: the profile declares capabilities.bootstrap: false",
        "B": "not run: its test needs an absent capability",
    }
    (first, _) = fold([record], info("A", "B"))
    assert first.note == "t: unsupported: the profile declares capabilities.bootstrap: false"


def test_not_configured_is_not_taken_for_not_measurable() -> None:
    """NotConfigured is a NotMeasurable subclass: the order of the branches matters."""
    record = classify("t", "s", ["A"], NotConfigured("foreign_sdk_key"), failed=False)
    assert record.outcomes == {"A": Outcome.NOT_CONFIGURED}
    assert record.message == "the profile does not set foreign_sdk_key"


def test_not_measurable_elsewhere_outweighs_not_configured() -> None:
    records = [
        classify("t1", "s", ["A"], NotConfigured("legacy_sdk_key"), failed=False),
        classify("t2", "s", ["A"], NotMeasurable("burst took too long"), failed=False),
    ]
    (result,) = fold(records, info("A"))
    assert result.outcome is Outcome.NOT_MEASURABLE


# ------------------------------------------------------------------ the verdict


def expected_verdict(outcomes: set[Outcome]) -> Verdict:
    """The rule, spelled out independently of ``verdict_of``."""
    if Outcome.FAIL in outcomes:
        return Verdict.NOT_CONFORMANT
    if Outcome.NOT_MEASURABLE in outcomes:
        return Verdict.INCOMPLETE
    if outcomes - {Outcome.PASS, Outcome.NOT_APPLICABLE}:  # an unclaimed option: no exception
        return Verdict.CONFORMANT_WITH_EXCEPTIONS
    return Verdict.CONFORMANT


@pytest.mark.parametrize(
    "outcomes",
    [set(c) for n in range(len(Outcome) + 1) for c in itertools.combinations(Outcome, n)],
    ids=lambda c: "+".join(sorted(o.value for o in c)) or "none",
)
def test_verdict_truth_table(outcomes: set[Outcome]) -> None:
    assert verdict_of(outcomes) is expected_verdict(outcomes)


@pytest.mark.parametrize(
    ("outcomes", "verdict"),
    [
        ([], Verdict.CONFORMANT),
        ([Outcome.PASS], Verdict.CONFORMANT),
        ([Outcome.PASS, Outcome.NOT_MEASURABLE], Verdict.INCOMPLETE),
        ([Outcome.NOT_MEASURABLE, Outcome.UNSUPPORTED], Verdict.INCOMPLETE),
        ([Outcome.PASS, Outcome.NOT_CONFIGURED], Verdict.CONFORMANT_WITH_EXCEPTIONS),
        ([Outcome.PASS, Outcome.UNSUPPORTED], Verdict.CONFORMANT_WITH_EXCEPTIONS),
        ([Outcome.KNOWN_FAILURE], Verdict.CONFORMANT_WITH_EXCEPTIONS),
        ([Outcome.SPEC_DOUBT], Verdict.CONFORMANT_WITH_EXCEPTIONS),
        ([Outcome.NOT_MEASURABLE, Outcome.FAIL], Verdict.NOT_CONFORMANT),
    ],
)
def test_verdict_rows_that_matter(outcomes: list[Outcome], verdict: Verdict) -> None:
    assert verdict_of(outcomes) is verdict


# ------------------------------------------------------------------ hashes in the report


def test_the_reports_contract_hash_is_sha256sum_of_the_contract_file() -> None:
    path = contract_path()
    report = report_for_run(
        [], {}, {"VER-PATH-V2"}, started_at="2026-01-01T00:00:00Z", duration_s=0
    )
    assert report.contract_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    sha256sum = shutil.which("sha256sum")
    if sha256sum is not None:
        out = subprocess.run([sha256sum, str(path)], capture_output=True, text=True, check=True)
        assert report.contract_sha256 == out.stdout.split()[0]


def test_the_reports_catalogue_hash_is_sha256_of_the_catalogue_file() -> None:
    path = Path(conformance.__file__).parent / "catalogue" / "requirements.yaml"
    report = report_for_run([], {}, None, started_at="t", duration_s=0.0)
    assert report.catalogue_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_convention_miss_is_not_judged_at_the_interface_and_lists_the_difference() -> None:
    miss = ConventionMiss(
        ("ERR-BODY-SHAPE", "EXP-GET"),
        "error body lacks errorCode",
        "errorCode (the default of errors.code_field, ...)",
        'HTTP 404 {"code": "nope"}',
        key="errors.code_field",
        convention="errorCode",
    )
    miss.passed_ids = ("EXP-LIST",)
    record = classify(
        "t::x", "scenarios", ("ERR-BODY-SHAPE", "EXP-GET", "EXP-LIST"), miss, failed=True
    )
    assert record.outcomes == {
        "ERR-BODY-SHAPE": Outcome.NOT_MEASURABLE,
        "EXP-GET": Outcome.NOT_MEASURABLE,
        "EXP-LIST": Outcome.PASS,
    }
    assert "declare its own choice as errors.code_field" in record.note["ERR-BODY-SHAPE"]
    (difference,) = record.differences
    assert difference.key == "errors.code_field"
    assert difference.requirement_ids == ("ERR-BODY-SHAPE", "EXP-GET")
    again = TestRecord.from_json(record.to_json())
    assert again.differences == record.differences


def test_differences_noted_by_a_passing_test_reach_its_requirements() -> None:
    noted = Difference(("A",), "statuses.create_configuration", "201", "HTTP 200", "create")
    record = classify("t::y", "scenarios", ("A",), None, failed=False, differences=(noted,))
    assert record.outcomes == {"A": Outcome.PASS}
    (result,) = fold([record], [RequirementInfo("A", "4.1", "text", "stated")])
    assert result.outcome is Outcome.PASS
    assert result.differences == (replace(noted, test_id="t::y"),)


# ------------------------------------------------------------------ optional capabilities


def test_an_unclaimed_optional_capability_is_not_applicable_and_no_exception() -> None:
    error = NotApplicable("experiments.hash_function", "null")
    record = classify("t", "scenarios", ["A", "B"], error, failed=False)
    assert record.outcomes == {"A": Outcome.NOT_APPLICABLE, "B": Outcome.NOT_APPLICABLE}
    assert "experiments.hash_function: null" in record.note["A"]
    assert verdict_of([Outcome.PASS, Outcome.NOT_APPLICABLE]) is Verdict.CONFORMANT


def test_a_capability_note_names_a_key_the_profile_has() -> None:
    """A dotted name is a profile key, never spelled as capabilities.<key>: false."""
    absent = Unsupported("experiments.unit_types with x")
    record = classify("t", "scenarios", ["A"], absent, failed=False)
    assert "capabilities." not in record.note["A"]
    plain = classify("t", "scenarios", ["A"], Unsupported("bootstrap"), failed=False)
    assert "capabilities.bootstrap: false" in plain.note["A"]


def test_every_exception_of_the_suite_says_what_it_means_but_a_usage_error() -> None:
    """A new exception class is classified by a rule of its own (or its parent's, on purpose),
    never by falling through to the generic record unnoticed."""
    generic = meaning.dispatch(BaseException)
    classes = [
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.ConformanceError)
    ]
    without = {c.__name__ for c in classes if meaning.dispatch(c) is generic}
    assert without == {"ConformanceError", "UsageError"}
    assert meaning.dispatch(errors.NotConfigured) is not meaning.dispatch(errors.NotMeasurable)
    assert meaning.dispatch(errors.ConventionMiss) is not meaning.dispatch(errors.ContractViolation)
