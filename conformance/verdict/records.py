"""Test records: one executed test's per-requirement outcomes, as a worker ships them.

A ``TestRecord`` is plain JSON through ``to_json`` (it crosses pytest-xdist in
``user_properties`` under ``conformance.session.wire.RECORD_KEY``; its evidence and differences
through ``conformance.verdict.record_json``); the controller reads it back with ``from_json`` and
folds the records into a ``Report`` (``conformance.run.folding``). ``record_of`` folds a test's
``Finding``s into its record, for a stage that records its tests itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.finding import EVERY, Finding
from conformance.verdict.outcome import Outcome, worst
from conformance.verdict.record_json import (
    difference_from_json,
    difference_to_json,
    evidence_from_json,
    evidence_to_json,
)


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
    # what showed the target broke down (a 5xx, no answer, an unbounded one): "" when nothing
    # did; such a failure stays a failure at the interface level even on a drop-in requirement
    breakdown: str = ""

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
            breakdown=str(data.get("breakdown", "")),
        )


def record_of(
    test_id: str,
    stage: str,
    requirement_ids: Sequence[str],
    findings: Iterable[Finding],
    *,
    duration_s: float = 0.0,
    message: str = "",
    evidence: Evidence | None = None,
    evidence_by_requirement: Mapping[str, Evidence] | None = None,
    differences: Sequence[Difference] = (),
) -> TestRecord:
    """A test's record folded from its findings: each requirement takes the worst outcome its
    findings give it (``worst``; a finding of ``EVERY`` requirement counts for each of
    ``requirement_ids``, one that none names passes) and the note of the last finding that has
    one. The record's requirements are ``requirement_ids``, then any other a finding names, in
    the order first named. Evidence and differences are the stage's, as given."""
    given = tuple(dict.fromkeys(requirement_ids))
    judged: dict[str, list[Outcome]] = {rid: [] for rid in given}
    note: dict[str, str] = {}
    for finding in findings:
        for rid in given if finding.requirement == EVERY else (finding.requirement,):
            judged.setdefault(rid, []).append(finding.outcome)
            if finding.note:
                note[rid] = finding.note
    return TestRecord(
        test_id=test_id,
        stage=stage,
        requirement_ids=tuple(judged),
        outcomes={rid: worst(outcomes) for rid, outcomes in judged.items()},
        duration_s=duration_s,
        message=message,
        evidence=evidence,
        note=note,
        evidence_by_requirement=dict(evidence_by_requirement or {}),
        differences=tuple(differences),
    )
