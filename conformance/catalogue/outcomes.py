"""Outcomes: one test's ending as per-requirement outcomes, and a run folded into a Report.

Plain functions, no pytest: the plugin calls ``classify`` on each worker, ships the resulting
``TestRecord`` through ``user_properties`` (plain JSON, so it crosses pytest-xdist), and the
controller calls ``build_report``. A skip is never a pass; a selected requirement with no
executed test is not measurable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from conformance import __version__
from conformance.catalogue.requirements import catalogue_index, current_baseline, load_catalogue
from conformance.contract.document import contract_sha256
from conformance.errors import (
    ContractViolation,
    ConventionMiss,
    NotApplicable,
    NotConfigured,
    NotMeasurable,
    Unsupported,
)
from conformance.json_types import JsonObject
from conformance.report.json_report import (
    difference_from_json,
    difference_to_json,
    evidence_from_json,
    evidence_to_json,
)
from conformance.report.model import (
    Difference,
    Evidence,
    Exchange,
    Outcome,
    Report,
    RequirementResult,
    StageSummary,
    TestResult,
    worst,
)
from conformance.stages import answered_by

# The outcomes a requirement shows its evidence for (a spec-doubt needs its curl line too).
EVIDENCED = frozenset({Outcome.FAIL, Outcome.SPEC_DOUBT})


@dataclass
class TestRecord:
    """One executed test as the controller needs it. JSON-safe through ``to_json``."""

    __test__ = False  # not a pytest test class

    test_id: str
    stage: str
    requirement_ids: tuple[str, ...]
    outcomes: dict[str, Outcome]  # per requirement id
    duration_s: float = 0.0
    message: str = ""
    evidence: Evidence | None = None  # the test's first evidence; any id without its own takes it
    note: dict[str, str] = field(default_factory=dict)  # per requirement id, e.g. why unmeasured
    # per requirement id, where the test knows which of its failures broke which requirement
    evidence_by_requirement: dict[str, Evidence] = field(default_factory=dict)
    # drop-in level: conventions the target departs from, which the profile does not declare
    differences: tuple[Difference, ...] = ()

    @property
    def outcome(self) -> Outcome:
        return worst(self.outcomes.values())

    def evidence_for(self, requirement_id: str) -> Evidence | None:
        """The evidence of one requirement: its own if the test has it, else the test's."""
        return self.evidence_by_requirement.get(requirement_id, self.evidence)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = asdict(self)
        data["evidence"] = None if self.evidence is None else evidence_to_json(self.evidence)
        data["evidence_by_requirement"] = {
            rid: evidence_to_json(e) for rid, e in self.evidence_by_requirement.items()
        }
        data["outcomes"] = {k: v.value for k, v in self.outcomes.items()}
        data["differences"] = [difference_to_json(d) for d in self.differences]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TestRecord:
        evidence = data.get("evidence")
        return cls(
            test_id=data["test_id"],
            stage=data["stage"],
            requirement_ids=tuple(data["requirement_ids"]),
            outcomes={k: Outcome(v) for k, v in data["outcomes"].items()},
            duration_s=float(data.get("duration_s", 0.0)),
            message=data.get("message", ""),
            evidence=None if evidence is None else evidence_from_json(evidence),
            note=dict(data.get("note", {})),
            evidence_by_requirement={
                rid: evidence_from_json(e)
                for rid, e in data.get("evidence_by_requirement", {}).items()
            },
            differences=tuple(difference_from_json(d) for d in data.get("differences", ())),
        )


def _violation_evidence(
    test_id: str,
    error: ContractViolation,
    requirement_ids: tuple[str, ...],
    exchanges: Sequence[Exchange],
) -> Evidence:
    return Evidence(
        test_id=test_id,
        requirement_ids=requirement_ids,
        title=error.title,
        expected=error.expected,
        received=error.received,
        curl=error.curl,
        exchanges=tuple(exchanges),
    )


def classify(
    test_id: str,
    stage: str,
    requirement_ids: Sequence[str],
    error: BaseException | None,
    *,
    failed: bool,
    duration_s: float = 0.0,
    exchanges: Sequence[Exchange] = (),
    message: str = "",
    differences: Sequence[Difference] = (),
) -> TestRecord:
    """Per-requirement outcomes of one test.

    ``differences``: the conventions the test found the target departing from (drop-in level);
    each is kept on the record whatever the outcome.

    - passed: every id passes.
    - ``ContractViolation``: its ids fail (all the test's ids if it names none); the test's other
      ids were not reached, so they are not measurable. A combined violation (``IndependentChecks``)
      gives each broken id the evidence of its own part.
    - ``NotConfigured`` (the profile leaves out an optional input): its ids are not configured,
      with a note naming the profile key that would enable them (a declared exception).
    - ``NotMeasurable`` / ``Unsupported``: every id takes that outcome.
    - ``NotApplicable`` (an optional capability the profile does not claim): its ids are not
      applicable, neither judged nor a declared exception; the note names the key.
    - ``ConventionMiss`` (an undeclared convention the test could not go past): its ids are not
      measurable at the interface level, the note naming the key; the miss is a difference.
    - any other failure or error (a plain assert, a crash on a malformed answer): every id fails.
    - a plain skip (no reason the suite knows): not measurable, never pass.
    """
    ids = tuple(requirement_ids)
    record = TestRecord(test_id, stage, ids, {}, duration_s, message)
    record.differences = tuple(differences)
    if isinstance(error, ConventionMiss):
        record.differences += (_difference_of(test_id, error, ids),)
        unjudged = tuple(i for i in error.requirement_ids if i in ids) or ids
        error = NotMeasurable(convention_note(error.key), unjudged, error.passed_ids)
    if isinstance(error, NotApplicable):
        unclaimed = set(error.requirement_ids) & set(ids) or set(ids)
        record.outcomes = {
            i: Outcome.NOT_APPLICABLE if i in unclaimed else Outcome.NOT_MEASURABLE for i in ids
        }
        record.message = str(error)
        record.note = {
            i: str(error) if i in unclaimed else "not run: its test needs an unclaimed capability"
            for i in ids
        }
    elif isinstance(error, Unsupported):
        absent = set(error.requirement_ids) & set(ids) or set(ids)
        record.outcomes = {
            i: Outcome.UNSUPPORTED if i in absent else Outcome.NOT_MEASURABLE for i in ids
        }
        record.message = str(error)
        declared = (
            f"unsupported: the profile does not declare {error.capability}"
            if "." in error.capability
            else f"unsupported: the profile declares capabilities.{error.capability}: false"
        )
        record.note = {
            i: declared if i in absent else "not run: its test needs an absent capability"
            for i in ids
        }
    elif isinstance(error, NotConfigured):  # before NotMeasurable: it is a subclass
        unset = set(error.requirement_ids) & set(ids) or set(ids)
        held = set(error.passed_ids) - unset
        record.outcomes = {i: Outcome.PASS if i in held else Outcome.NOT_CONFIGURED for i in ids}
        record.message = error.reason
        note = not_configured_note(error.profile_key, error.reason)
        record.note = {i: note for i in ids if i not in held}
    elif isinstance(error, NotMeasurable):
        unmeasured = set(error.requirement_ids) & set(ids) or set(ids)
        held = set(error.passed_ids) - unmeasured
        record.outcomes = {i: Outcome.PASS if i in held else Outcome.NOT_MEASURABLE for i in ids}
        record.message = error.reason
        record.note = {i: error.reason for i in ids if i not in held}
    elif isinstance(error, ContractViolation):
        broken = tuple(i for i in error.requirement_ids if i in ids) or ids
        held = set(error.passed_ids) - set(broken)
        record.outcomes = {
            i: Outcome.FAIL
            if i in broken
            else (Outcome.PASS if i in held else Outcome.NOT_MEASURABLE)
            for i in ids
        }
        record.note = {
            i: "its test stopped at an earlier failure"
            for i in ids
            if i not in broken and i not in held
        }
        record.message = str(error)
        record.evidence = _violation_evidence(test_id, error, broken, exchanges)
        for part in error.parts:
            part_ids = tuple(i for i in part.requirement_ids if i in broken)
            for rid in part_ids:
                record.evidence_by_requirement.setdefault(
                    rid, _violation_evidence(test_id, part, part_ids, exchanges)
                )
    elif failed:
        record.outcomes = dict.fromkeys(ids, Outcome.FAIL)
        text = message or (f"{type(error).__name__}: {error}" if error else "test failed")
        record.message = text
        record.evidence = Evidence(
            test_id=test_id,
            requirement_ids=ids,
            title="test failed",
            expected="the test to pass",
            received=text.splitlines()[-1] if text else "a failure",
            curl=None,
            exchanges=tuple(exchanges),
        )
    elif error is not None:  # a skip
        record.outcomes = dict.fromkeys(ids, Outcome.NOT_MEASURABLE)
        record.message = message or str(error)
        record.note = dict.fromkeys(ids, record.message)
    else:
        record.outcomes = dict.fromkeys(ids, Outcome.PASS)
    return record


def convention_note(key: str) -> str:
    """Why a requirement resting on an undeclared convention is not judged at the interface."""
    return (
        f"not judged at the interface level: the target departs from the convention {key} "
        f"defaults to; declare its own choice as {key} in the profile (drop-in: a difference)"
    )


def _difference_of(test_id: str, error: ConventionMiss, ids: tuple[str, ...]) -> Difference:
    return Difference(
        requirement_ids=tuple(i for i in error.requirement_ids if i in ids) or ids,
        key=error.key,
        convention=error.convention,
        received=error.received,
        title=error.title,
        test_id=test_id,
        curl=error.curl,
    )


def not_configured_note(profile_key: str, reason: str = "") -> str:
    """The note of a requirement the profile left unconfigured. When the key is simply not set,
    the note says to set it; when the test gave its own cause (the key is set, but what it
    names cannot serve: a foreign project with no configuration, keys that all cover every
    environment), the note names the key and that cause, never "set" a key already set."""
    if not reason or reason == NotConfigured(profile_key).reason:
        return f"not configured: set {profile_key} in the profile"
    return f"not configured: {reason} ({profile_key})"


@dataclass(frozen=True)
class RequirementInfo:
    """What the report needs of a catalogue entry."""

    id: str
    section: str
    text: str
    basis: str
    subject: str = "server"


def fold(
    records: Iterable[TestRecord],
    selected: Sequence[RequirementInfo],
    baseline: Mapping[str, str] | None = None,
) -> tuple[RequirementResult, ...]:
    """Worst outcome per selected requirement, baseline applied; untested ones not measurable."""
    baseline = baseline or {}
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


# ------------------------------------------------------------------ the run's report


def selected_requirements(
    wanted: set[str] | None, seen: Iterable[str], scope: frozenset[str] | None = None
) -> list[RequirementInfo]:
    """The requirements a run reports on: ``wanted`` if given, else those in ``scope`` (what the
    stages that ran answer for, of any subject), else every server rule no stage owns alone."""
    index = catalogue_index()
    if wanted is not None:
        ids = sorted(wanted)
    else:
        ids = [
            r.id
            for r in index.values()
            if (r.id in scope if scope is not None else getattr(r, "checkable", True))
        ]
        ids += [i for i in dict.fromkeys(seen) if i not in index]
    infos = []
    for rid in ids:
        entry = index.get(rid)
        infos.append(
            RequirementInfo(
                id=rid,
                section=str(getattr(entry, "section", "")),
                text=str(getattr(entry, "text", "")) or "(not in the requirement catalogue)",
                basis=str(getattr(entry, "basis", "")),
                subject=str(getattr(entry, "subject", "server")),
            )
        )
    return infos


def report_for_run(
    records: Sequence[TestRecord],
    target_info: Mapping[str, object],
    wanted: set[str] | None,
    *,
    started_at: str,
    duration_s: float,
    stage_details: Mapping[str, JsonObject] | None = None,
) -> Report:
    """The Report of one run from its test records and what is known of the target."""
    seen = [rid for record in records for rid in record.requirement_ids]
    if wanted is not None:
        records = [record for record in records if wanted.intersection(record.requirement_ids)]
    return build_report(
        records,
        selected_requirements(wanted, seen, answered_by(r.stage for r in records)),
        baseline=current_baseline(
            {rid: str(reason) for rid, reason in _mapping(target_info.get("baseline")).items()}
        ),
        suite_version=__version__,
        contract_sha256=contract_sha256(),
        catalogue_sha256=load_catalogue().sha256,
        target_url=str(target_info.get("url", "")),
        target_fingerprint=str(target_info.get("fingerprint", "")),
        profile=_mapping(target_info.get("profile")),
        started_at=started_at,
        duration_s=duration_s,
        stage_details=stage_details,
    )


def _mapping(value: object) -> dict[str, object]:
    """A table of the target info (the profile, its baseline) by name; absent: empty."""
    if not isinstance(value, Mapping):
        return {}
    return {str(key): item for key, item in value.items()}
