"""Classification: one test's ending (passed, an exception of the suite, a plain failure or skip)
as a ``TestRecord`` of per-requirement outcomes."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.errors import (
    ContractViolation,
    ConventionMiss,
    NotApplicable,
    NotConfigured,
    NotMeasurable,
    Unsupported,
)
from conformance.report.model import Difference, Evidence, Exchange, Outcome
from conformance.verdict.records import TestRecord


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
