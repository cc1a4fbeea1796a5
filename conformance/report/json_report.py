"""The JSON report: ``Report`` to a plain, versioned dict and back, exactly (round-trip)."""

from __future__ import annotations

import json
from typing import NotRequired, TypedDict

from conformance.json_types import JsonObject
from conformance.report.model import (
    SCHEMA_VERSION,
    Report,
    RequirementResult,
    StageSummary,
    TestResult,
)
from conformance.verdict.outcome import Outcome
from conformance.verdict.record_json import (
    DifferenceJson,
    EvidenceJson,
    difference_from_json,
    difference_to_json,
    evidence_from_json,
    evidence_to_json,
)

FILE_NAME = "conformance.json"
SCHEMA_ID = "https://rces-conformance.invalid/schemas/conformance-report.schema.json"


# The JSON form of each part of a report, as report.schema.json describes it (keys a reader of
# an older schema version may miss are NotRequired); evidence and differences take the test
# record's form (``conformance.verdict.record_json``).


class LevelsJson(TypedDict):
    interface: str
    drop_in: str


class TestJson(TypedDict):
    test_id: str
    stage: str
    requirement_ids: list[str]
    outcome: str
    duration_s: float
    message: NotRequired[str]
    evidence: NotRequired[EvidenceJson | None]


class RequirementJson(TypedDict):
    id: str
    section: str
    text: str
    basis: str
    outcome: str
    tests: list[str]
    evidence: NotRequired[list[EvidenceJson]]
    note: NotRequired[str]
    subject: NotRequired[str]
    differences: NotRequired[list[DifferenceJson]]


class StageJson(TypedDict):
    name: str
    tests: int
    duration_s: float
    details: NotRequired[JsonObject]


class MeasuredJson(TypedDict):
    count: int
    of: int


class TargetJson(TypedDict):
    url: str
    fingerprint: str


ReportJson = TypedDict(
    "ReportJson",
    {
        "$schema": NotRequired[str],
        "schema_version": str,
        "verdict": NotRequired[str],
        "levels": NotRequired[LevelsJson],
        "differences": NotRequired[list[DifferenceJson]],
        "measured": NotRequired[MeasuredJson],
        "counts": NotRequired[dict[str, int]],
        "not_measured": NotRequired[list[str]],
        "suite_version": str,
        "contract_sha256": str,
        "catalogue_sha256": str,
        "target": TargetJson,
        "profile": dict[str, object],
        "started_at": str,
        "duration_s": float,
        "requirements": list[RequirementJson],
        "tests": NotRequired[list[TestJson]],
        "stages": NotRequired[list[StageJson]],
    },
)


def _test_to_json(test: TestResult) -> TestJson:
    return {
        "test_id": test.test_id,
        "stage": test.stage,
        "requirement_ids": list(test.requirement_ids),
        "outcome": test.outcome.value,
        "duration_s": test.duration_s,
        "message": test.message,
        "evidence": None if test.evidence is None else evidence_to_json(test.evidence),
    }


def _test_from_json(data: TestJson) -> TestResult:
    evidence = data.get("evidence")
    return TestResult(
        test_id=data["test_id"],
        stage=data["stage"],
        requirement_ids=tuple(data["requirement_ids"]),
        outcome=Outcome(data["outcome"]),
        duration_s=float(data["duration_s"]),
        message=data.get("message", ""),
        evidence=None if evidence is None else evidence_from_json(evidence),
    )


def _requirement_to_json(requirement: RequirementResult) -> RequirementJson:
    return {
        "id": requirement.id,
        "section": requirement.section,
        "text": requirement.text,
        "basis": requirement.basis,
        "outcome": requirement.outcome.value,
        "tests": list(requirement.tests),
        "evidence": [evidence_to_json(e) for e in requirement.evidence],
        "note": requirement.note,
        "subject": requirement.subject,
        "differences": [difference_to_json(d) for d in requirement.differences],
    }


def _requirement_from_json(data: RequirementJson) -> RequirementResult:
    return RequirementResult(
        id=data["id"],
        section=data["section"],
        text=data["text"],
        basis=data["basis"],
        outcome=Outcome(data["outcome"]),
        tests=tuple(data["tests"]),
        evidence=tuple(evidence_from_json(e) for e in data.get("evidence", ())),
        note=data.get("note", ""),
        subject=data.get("subject", "server"),  # a 1.0 or 1.1 file: a server's, all of them
        differences=tuple(difference_from_json(d) for d in data.get("differences", ())),
    )


def _stage_to_json(stage: StageSummary) -> StageJson:
    return {
        "name": stage.name,
        "tests": stage.tests,
        "duration_s": stage.duration_s,
        "details": stage.details,
    }


def _stage_from_json(data: StageJson) -> StageSummary:
    return StageSummary(
        name=data["name"],
        tests=int(data["tests"]),
        duration_s=float(data["duration_s"]),
        details=dict(data.get("details", {})),
    )


def to_json(report: Report) -> ReportJson:
    """The report as a JSON-ready dict; derived fields (verdict, measured, counts, not_measured)
    included for readers."""
    return {
        "$schema": SCHEMA_ID,
        "schema_version": report.schema_version,
        "verdict": report.verdict.value,
        "levels": {"interface": report.verdict.value, "drop_in": report.drop_in_verdict.value},
        "differences": [difference_to_json(d) for d in report.differences],
        "measured": {"count": report.measured, "of": report.applicable},
        "counts": report.counts,
        "not_measured": list(report.not_measured),
        "suite_version": report.suite_version,
        "contract_sha256": report.contract_sha256,
        "catalogue_sha256": report.catalogue_sha256,
        "target": {"url": report.target_url, "fingerprint": report.target_fingerprint},
        "profile": report.profile,
        "started_at": report.started_at,
        "duration_s": report.duration_s,
        "requirements": [_requirement_to_json(r) for r in report.requirements],
        "tests": [_test_to_json(t) for t in report.tests],
        "stages": [_stage_to_json(s) for s in report.stages],
    }


def from_json(data: ReportJson) -> Report:
    """The ``Report`` a ``to_json`` dict came from (derived fields are recomputed, not read)."""
    major = str(data.get("schema_version", "")).split(".")[0]
    if major != SCHEMA_VERSION.split(".")[0]:
        raise ValueError(
            f"unsupported report schema_version {data.get('schema_version')!r};"
            f" this suite reads {SCHEMA_VERSION}"
        )
    target = data["target"]
    return Report(
        suite_version=data["suite_version"],
        contract_sha256=data["contract_sha256"],
        catalogue_sha256=data["catalogue_sha256"],
        target_url=target["url"],
        target_fingerprint=target["fingerprint"],
        profile=dict(data["profile"]),
        started_at=data["started_at"],
        duration_s=float(data["duration_s"]),
        requirements=tuple(_requirement_from_json(r) for r in data["requirements"]),
        stages=tuple(_stage_from_json(s) for s in data.get("stages", ())),
        tests=tuple(_test_from_json(t) for t in data.get("tests", ())),
        schema_version=data["schema_version"],
    )


def dumps(report: Report) -> str:
    """Stable text: sorted keys, two-space indent, trailing newline."""
    return json.dumps(to_json(report), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def loads(text: str) -> Report:
    return from_json(json.loads(text))
