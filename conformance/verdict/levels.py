"""The level a run judges each requirement at: a production convention the profile does not
declare is judged at the drop-in level, in every stage alike. Its failure in a test record becomes
a drop-in ``Difference`` and its interface outcome ``not-applicable``; a pass stays a pass. Not
measured, it is not an interface requirement either: ``not-applicable``, its reason kept. A
failure of a test that met a breakdown (a 5xx, no answer, an unbounded one) stays a failure:
that is evidence at every level."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from conformance.verdict.difference import Difference
from conformance.verdict.outcome import Outcome
from conformance.verdict.records import TestRecord
from conformance.verdict.requirement_info import RequirementInfo
from conformance.verdict.run_verdict import Level

UNDECLARED_NOTE = (
    "a production convention the profile does not declare: judged at the drop-in level"
)
BREAKDOWN_NOTE = (
    "a drop-in requirement, yet its test met a breakdown of the target, judged at every level"
)
ALL_CONVENTIONS_KEY = "conventions"  # the difference's key when no single key declares it


def at_their_levels(
    records: Iterable[TestRecord], selected: Sequence[RequirementInfo]
) -> list[TestRecord]:
    """The records with each drop-in requirement's failure turned into a difference (and its
    not measured into not-applicable, the reason kept)."""
    dropped = {info.id: info for info in selected if info.level is Level.DROP_IN}
    return [_at_drop_in(record, dropped) if dropped else record for record in records]


def _at_drop_in(record: TestRecord, dropped: dict[str, RequirementInfo]) -> TestRecord:
    failed = [rid for rid in dropped if record.outcomes.get(rid) is Outcome.FAIL]
    unmeasured = [rid for rid in dropped if record.outcomes.get(rid) is Outcome.NOT_MEASURABLE]
    if not failed and not unmeasured:
        return record
    outcomes = dict(record.outcomes)
    notes = dict(record.note)
    differences = list(record.differences)
    for rid in unmeasured:
        outcomes[rid] = Outcome.NOT_APPLICABLE
        reason = notes.get(rid) or record.message
        notes[rid] = f"{UNDECLARED_NOTE}; not measured: {reason}" if reason else UNDECLARED_NOTE
    if record.breakdown:  # a 5xx or no answer is evidence at every level: the failure stands
        for rid in failed:
            notes[rid] = f"{BREAKDOWN_NOTE}: {record.breakdown}"
        failed = []
    for rid in failed:
        info = dropped[rid]
        evidence = record.evidence_for(rid)
        outcomes[rid] = Outcome.NOT_APPLICABLE
        notes[rid] = UNDECLARED_NOTE
        differences += [
            Difference(
                requirement_ids=(rid,),
                key=key,
                convention=info.convention,
                received=(evidence.received if evidence is not None else "") or record.message,
                title=info.title or (evidence.title if evidence is not None else rid),
                test_id=record.test_id,
                curl=evidence.curl if evidence is not None else None,
            )
            for key in info.convention_keys or (ALL_CONVENTIONS_KEY,)
        ]
    return replace(record, outcomes=outcomes, note=notes, differences=tuple(differences))
