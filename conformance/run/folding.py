"""Folding: a run's test records into a ``Report``: the worst outcome per selected requirement
(baseline applied, an untested one not measurable), the per-test view and one summary per stage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from conformance.json_types import JsonObject
from conformance.report.model import Report, RequirementResult, StageSummary, TestResult
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.levels import at_their_levels
from conformance.verdict.outcome import Outcome, worst
from conformance.verdict.records import TestRecord
from conformance.verdict.requirement_info import RequirementInfo as RequirementInfo

# The outcomes a requirement shows its evidence for (a spec-doubt needs its curl line too).
EVIDENCED = frozenset({Outcome.FAIL, Outcome.SPEC_DOUBT})


def fold(
    records: Iterable[TestRecord],
    selected: Sequence[RequirementInfo],
    baseline: Mapping[str, str] | None = None,
) -> tuple[RequirementResult, ...]:
    """Worst outcome per selected requirement, baseline applied; untested ones not measurable.
    A requirement the run judges at the drop-in level has its failures as differences
    (``verdict.levels``)."""
    baseline = baseline or {}
    records = at_their_levels(records, selected)
    outcomes: dict[str, list[Outcome]] = {}
    tests: dict[str, list[str]] = {}
    evidence: dict[str, list[Evidence]] = {}
    notes: dict[str, list[str]] = {}
    differences: dict[str, list[Difference]] = {}
    for record in records:
        for difference in record.differences:
            if not difference.test_id:
                difference = replace(difference, test_id=record.test_id)
            for rid in difference.requirement_ids:
                differences.setdefault(rid, []).append(difference)
        for rid, outcome in record.outcomes.items():
            outcomes.setdefault(rid, []).append(outcome)
            tests.setdefault(rid, []).append(record.test_id)
            if rid in record.note:
                notes.setdefault(rid, []).append(f"{record.test_id}: {record.note[rid]}")
            found = record.evidence_for(rid) if outcome in EVIDENCED else None
            if found is not None:
                evidence.setdefault(rid, []).append(found)
    results = []
    for info in selected:
        seen = outcomes.get(info.id, [])
        outcome = worst(seen) if seen else Outcome.NOT_MEASURABLE
        note = "; ".join(dict.fromkeys(notes.get(info.id, [])))
        if not seen:
            note = "no executed test checks this requirement in the stages that ran"
        if info.id in baseline:
            if outcome is Outcome.FAIL:
                outcome = Outcome.KNOWN_FAILURE
                note = f"known failure (baseline): {baseline[info.id]}"
            elif outcome is Outcome.PASS:
                note = "baseline entry now passes: remove it from the profile's baseline"
        results.append(
            RequirementResult(
                id=info.id,
                section=info.section,
                text=info.text,
                basis=info.basis,
                outcome=outcome,
                tests=tuple(dict.fromkeys(tests.get(info.id, []))),
                evidence=tuple(evidence.get(info.id, [])),
                note=note,
                subject=info.subject,
                differences=tuple(differences.get(info.id, [])),
            )
        )
    return tuple(results)


def per_test_results(
    records: Iterable[TestRecord], baseline: Mapping[str, str]
) -> tuple[TestResult, ...]:
    """The per-test view of the run (a failing test whose ids are all baselined is known)."""
    results = []
    for record in records:
        outcome = record.outcome
        if outcome is Outcome.FAIL and all(
            rid in baseline for rid, o in record.outcomes.items() if o is Outcome.FAIL
        ):
            outcome = Outcome.KNOWN_FAILURE
        results.append(
            TestResult(
                test_id=record.test_id,
                stage=record.stage,
                requirement_ids=record.requirement_ids,
                outcome=outcome,
                duration_s=record.duration_s,
                message=record.message,
                evidence=record.evidence,
            )
        )
    return tuple(results)


def stage_summaries(
    records: Sequence[TestRecord], details: Mapping[str, JsonObject] | None = None
) -> tuple[StageSummary, ...]:
    """One summary per stage that ran; ``details`` are what the stage's tests reported."""
    stages: dict[str, list[TestRecord]] = {}
    for record in records:
        stages.setdefault(record.stage, []).append(record)
    details = details or {}
    return tuple(
        StageSummary(
            name=name,
            tests=len(group),
            duration_s=round(sum(r.duration_s for r in group), 3),
            details={**details.get(name, {}), "outcomes": _count(r.outcome for r in group)},
        )
        for name, group in stages.items()
    )


def _count(outcomes: Iterable[Outcome]) -> JsonObject:
    counts: Counter[str] = Counter(outcome.value for outcome in outcomes)
    return {value: count for value, count in counts.items()}  # in the order first seen


def build_report(
    records: Sequence[TestRecord],
    selected: Sequence[RequirementInfo],
    *,
    baseline: Mapping[str, str],
    suite_version: str,
    contract_sha256: str,
    catalogue_sha256: str,
    target_url: str,
    target_fingerprint: str,
    profile: dict[str, object],
    started_at: str,
    duration_s: float,
    stage_details: Mapping[str, JsonObject] | None = None,
) -> Report:
    records = at_their_levels(records, selected)  # the per-test view says the same as the fold
    return Report(
        suite_version=suite_version,
        contract_sha256=contract_sha256,
        catalogue_sha256=catalogue_sha256,
        target_url=target_url,
        target_fingerprint=target_fingerprint,
        profile=profile,
        started_at=started_at,
        duration_s=duration_s,
        requirements=fold(records, selected, baseline),
        stages=stage_summaries(records, stage_details),
        tests=per_test_results(records, baseline),
    )
