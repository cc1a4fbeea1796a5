"""conformance.json: exact round-trip, schema validity, figures carried, version guard."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conformance.report.json_report import dumps, from_json, loads, to_json
from conformance.report.model import Report
from conformance.report.report_schema import schema_errors
from conformance.report.writer import write_reports
from conformance.verdict.outcome import Outcome
from tests.support import sample_reports as samples


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_round_trip_is_exact(name: str) -> None:
    report = samples.SAMPLES[name]()
    assert from_json(to_json(report)) == report
    assert loads(dumps(report)) == report


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_written_json_validates_against_the_schema(name: str, tmp_path: Path) -> None:
    write_reports(samples.SAMPLES[name](), tmp_path, formats=["json"])
    data = json.loads((tmp_path / "conformance.json").read_text(encoding="utf-8"))
    assert schema_errors(data) == []


def test_schema_rejects_a_broken_report() -> None:
    data = to_json(samples.not_conformant())
    broken = copy.deepcopy(data)
    broken["verdict"] = "mostly fine"
    broken["requirements"][0]["outcome"] = "skipped"
    del broken["counts"]["fail"]
    errors = schema_errors(broken)
    assert any(e.startswith("at /verdict:") for e in errors)
    assert any(e.startswith("at /requirements/0/outcome:") for e in errors)
    assert any(e.startswith("at /counts:") for e in errors)


@pytest.mark.parametrize(
    ("name", "verdict", "counts", "measured"),
    [
        ("conformant", "conformant", {"pass": 9}, 9),
        (
            "with-exceptions",
            "conformant-with-declared-exceptions",
            {"pass": 5, "unsupported": 1, "not-configured": 1, "known-failure": 1, "spec-doubt": 1},
            7,
        ),
        ("incomplete", "incomplete", {"pass": 6, "not-measurable": 2, "not-configured": 1}, 6),
        (
            "not-conformant",
            "not-conformant",
            {"pass": 5, "fail": 2, "unsupported": 1, "not-measurable": 1},
            7,
        ),
    ],
)
def test_verdict_counts_and_measured(
    name: str, verdict: str, counts: dict[str, int], measured: int
) -> None:
    data = to_json(samples.SAMPLES[name]())
    assert data["verdict"] == verdict
    assert {k: v for k, v in data["counts"].items() if v} == counts
    assert data["measured"] == {"count": measured, "of": 9}
    assert len(data["not_measured"]) == 9 - measured


def test_a_1_0_report_still_validates_and_reads_back_with_todays_verdict() -> None:
    data = to_json(samples.incomplete())
    data["schema_version"] = "1.0"
    del data["measured"]
    del data["counts"]["not-configured"]
    data["verdict"] = "conformant"  # 1.0 judged not-measurable as conformant
    for requirement in data["requirements"]:
        if requirement["outcome"] == "not-configured":
            requirement["outcome"] = "unsupported"
    for test in data["tests"]:
        if test["outcome"] == "not-configured":
            test["outcome"] = "unsupported"
    assert schema_errors(data) == []
    assert from_json(data).verdict.value == "incomplete"  # derived fields are recomputed


def test_a_1_1_report_must_carry_measured_and_the_not_configured_count() -> None:
    data = to_json(samples.incomplete())
    del data["measured"]
    del data["counts"]["not-configured"]
    errors = schema_errors(data)
    assert any("'measured' is a required property" in e for e in errors)
    assert any("'not-configured' is a required property" in e for e in errors)


def test_failure_carries_evidence_and_stages_carry_fuzz_figures() -> None:
    data = to_json(samples.not_conformant())
    failed = {r["id"]: r for r in data["requirements"] if r["outcome"] == "fail"}
    evidence = failed["SDK-STATUS-304-IF-NONE-MATCH"]["evidence"]
    assert [e["test_id"] for e in evidence] == [
        "scenarios/test_status.py::test_304_if_none_match",
        "fuzz::GET /sdk/v2/status",
    ]
    assert evidence[0]["curl"].startswith("curl ")
    assert evidence[0]["exchanges"][0]["status"] == 200
    assert evidence[1]["seed"] == 12345
    stages = {s["name"]: s["details"] for s in data["stages"]}
    assert stages["fuzz"]["cases"] == 1900
    assert stages["fuzz"]["seed"] == 12345
    assert stages["scenarios"]["bucketing"]["p_value"] == pytest.approx(0.657)


def test_other_major_schema_version_is_refused() -> None:
    data = to_json(samples.conformant())
    data["schema_version"] = "2.0"
    with pytest.raises(ValueError, match="schema_version"):
        from_json(data)


def test_derived_fields_are_recomputed_not_trusted() -> None:
    data = to_json(samples.conformant())
    data["verdict"] = "not-conformant"
    report: Report = from_json(data)
    assert report.verdict.value == "conformant"
    assert all(r.outcome is Outcome.PASS for r in report.requirements)


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    from conformance.report.report_schema import report_schema

    Draft202012Validator.check_schema(report_schema())
