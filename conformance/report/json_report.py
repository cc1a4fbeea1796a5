"""The JSON report: ``Report`` to a plain, versioned dict and back, exactly (round-trip)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from conformance.report.model import (
    SCHEMA_VERSION,
    Evidence,
    Exchange,
    Outcome,
    Report,
    RequirementResult,
    StageSummary,
    TestResult,
)

FILE_NAME = "conformance.json"
SCHEMA_ID = "https://rces-conformance.invalid/schemas/conformance-report.schema.json"


def _exchange_to_json(exchange: Exchange) -> dict[str, Any]:
    return {f.name: getattr(exchange, f.name) for f in fields(Exchange)}


def _exchange_from_json(data: Mapping[str, Any]) -> Exchange:
    return Exchange(
        method=data["method"],
        url=data["url"],
        request_headers=dict(data["request_headers"]),
        request_body=data["request_body"],
        status=data["status"],
        response_headers=dict(data["response_headers"]),
        response_body=data["response_body"],
        elapsed_ms=float(data["elapsed_ms"]),
    )


def evidence_to_json(evidence: Evidence) -> dict[str, Any]:
    """One piece of evidence as plain JSON (the report's form, also a test record's)."""
    return {
        "test_id": evidence.test_id,
        "requirement_ids": list(evidence.requirement_ids),
        "title": evidence.title,
        "expected": evidence.expected,
        "received": evidence.received,
        "curl": evidence.curl,
        "exchanges": [_exchange_to_json(e) for e in evidence.exchanges],
        "check": evidence.check,
        "seed": evidence.seed,
    }


def evidence_from_json(data: Mapping[str, Any]) -> Evidence:
    """The ``Evidence`` an ``evidence_to_json`` dict came from."""
    return Evidence(
        test_id=data["test_id"],
        requirement_ids=tuple(data["requirement_ids"]),
        title=data["title"],
        expected=data["expected"],
        received=data["received"],
        curl=data.get("curl"),
        exchanges=tuple(_exchange_from_json(e) for e in data.get("exchanges", ())),
        check=data.get("check"),
        seed=data.get("seed"),
    )


def _test_to_json(test: TestResult) -> dict[str, Any]:
    return {
        "test_id": test.test_id,
        "stage": test.stage,
        "requirement_ids": list(test.requirement_ids),
        "outcome": test.outcome.value,
        "duration_s": test.duration_s,
        "message": test.message,
        "evidence": None if test.evidence is None else evidence_to_json(test.evidence),
    }


def _test_from_json(data: dict[str, Any]) -> TestResult:
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


def _requirement_to_json(requirement: RequirementResult) -> dict[str, Any]:
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
    }


def _requirement_from_json(data: dict[str, Any]) -> RequirementResult:
    return RequirementResult(
        id=data["id"],
        section=data["section"],
        text=data["text"],
        basis=data["basis"],
        outcome=Outcome(data["outcome"]),
        tests=tuple(data["tests"]),
        evidence=tuple(evidence_from_json(e) for e in data.get("evidence", ())),
        note=data.get("note", ""),
        subject=data.get("subject", "server"),  # before 1.2: every requirement was a server's
    )


def _stage_to_json(stage: StageSummary) -> dict[str, Any]:
    return {
        "name": stage.name,
        "tests": stage.tests,
        "duration_s": stage.duration_s,
        "details": stage.details,
    }


def _stage_from_json(data: dict[str, Any]) -> StageSummary:
    return StageSummary(
        name=data["name"],
        tests=int(data["tests"]),
        duration_s=float(data["duration_s"]),
        details=dict(data.get("details", {})),
    )


def to_json(report: Report) -> dict[str, Any]:
    """The report as a JSON-ready dict; derived fields (verdict, measured, counts, not_measured)
    included for readers."""
    return {
        "$schema": SCHEMA_ID,
        "schema_version": report.schema_version,
        "verdict": report.verdict.value,
        "measured": {"count": report.measured, "of": len(report.requirements)},
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


def from_json(data: dict[str, Any]) -> Report:
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
