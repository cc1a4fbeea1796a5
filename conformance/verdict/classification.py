"""Classification: one test's ending (passed, an exception of the suite, a plain failure or skip)
as a ``TestRecord`` of per-requirement outcomes."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from conformance.errors import (
    BREAKDOWNS,
    ContractViolation,
    ConventionMiss,
    NotApplicable,
    NotConfigured,
    NotMeasurable,
    SetupRefused,
    Unsupported,
)
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence, Exchange
from conformance.verdict.outcome import Outcome
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
    each is kept on the record whatever the outcome. An exception of the suite says what it
    means (``meaning``, one rule per class, the most specific class first whatever the order
    they are written in); any other ending takes the generic record (``generic``).
    """
    ids = tuple(requirement_ids)
    record = TestRecord(test_id, stage, ids, {}, duration_s, message)
    record.differences = tuple(differences)
    if error is None or not meaning(error, record, tuple(exchanges)):
        generic(record, error, failed=failed, exchanges=exchanges)
    return record


def generic(
    record: TestRecord,
    error: BaseException | None,
    *,
    failed: bool,
    exchanges: Sequence[Exchange] = (),
) -> None:
    """A test whose ending the suite gives no meaning of its own.

    - passed: every id passes.
    - any failure or error (a plain assert, a crash on a malformed answer): every id fails.
    - a plain skip (no reason the suite knows): not measurable, never pass.
    """
    ids = record.requirement_ids
    if failed:
        record.outcomes = dict.fromkeys(ids, Outcome.FAIL)
        text = record.message or (f"{type(error).__name__}: {error}" if error else "test failed")
        record.message = text
        record.evidence = Evidence(
            test_id=record.test_id,
            requirement_ids=ids,
            title="test failed",
            expected="the test to pass",
            received=text.splitlines()[-1] if text else "a failure",
            curl=None,
            exchanges=tuple(exchanges),
        )
    elif error is not None:  # a skip
        record.outcomes = dict.fromkeys(ids, Outcome.NOT_MEASURABLE)
        record.message = record.message or str(error)
        record.note = dict.fromkeys(ids, record.message)
    else:
        record.outcomes = dict.fromkeys(ids, Outcome.PASS)


@functools.singledispatch
def meaning(error: BaseException, record: TestRecord, exchanges: tuple[Exchange, ...]) -> bool:
    """Fill ``record`` with what ``error`` means, per requirement; False: it has no meaning of
    its own (a plain assert, a crash, ``UsageError``), and the generic record applies. Each
    exception class of the suite registers its own rule below."""
    return False


def _named(named: Sequence[str], ids: tuple[str, ...]) -> set[str]:
    """The test's ids an exception names (naming none of them: every id of the test)."""
    return set(named) & set(ids) or set(ids)


@meaning.register
def _not_applicable(
    error: NotApplicable, record: TestRecord, exchanges: tuple[Exchange, ...]
) -> bool:
    """An optional capability the profile does not claim: its ids are not applicable, neither
    judged nor a declared exception; the note names the key."""
    ids = record.requirement_ids
    unclaimed = _named(error.requirement_ids, ids)
    held = set(error.passed_ids) - unclaimed
    record.outcomes = {
        i: Outcome.NOT_APPLICABLE
        if i in unclaimed
        else (Outcome.PASS if i in held else Outcome.NOT_MEASURABLE)
        for i in ids
    }
    record.message = str(error)
    record.note = {
        i: str(error) if i in unclaimed else "not run: its test needs an unclaimed capability"
        for i in ids
        if i not in held
    }
    return True


@meaning.register
def _unsupported(error: Unsupported, record: TestRecord, exchanges: tuple[Exchange, ...]) -> bool:
    """A capability the profile declares absent: its ids are unsupported."""
    ids = record.requirement_ids
    absent = _named(error.requirement_ids, ids)
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
        i: declared if i in absent else "not run: its test needs an absent capability" for i in ids
    }
    return True


@meaning.register
def _not_configured(
    error: NotConfigured, record: TestRecord, exchanges: tuple[Exchange, ...]
) -> bool:
    """The profile leaves out an optional input: its ids are not configured, with a note naming
    the profile key that would enable them (a declared exception); ids that held pass."""
    ids = record.requirement_ids
    unset = _named(error.requirement_ids, ids)
    held = set(error.passed_ids) - unset
    record.outcomes = {i: Outcome.PASS if i in held else Outcome.NOT_CONFIGURED for i in ids}
    record.message = error.reason
    note = not_configured_note(error.profile_key, error.reason)
    record.note = {i: note for i in ids if i not in held}
    return True


@meaning.register
def _not_measurable(
    error: NotMeasurable, record: TestRecord, exchanges: tuple[Exchange, ...]
) -> bool:
    """The behaviour could not be observed: its ids are not measurable, with the reason; ids
    checked before in the same scenario, and held, pass."""
    ids = record.requirement_ids
    unmeasured = _named(error.requirement_ids, ids)
    held = set(error.passed_ids) - unmeasured
    record.outcomes = {i: Outcome.PASS if i in held else Outcome.NOT_MEASURABLE for i in ids}
    record.message = error.reason
    record.note = {i: error.reason for i in ids if i not in held}
    return True


@meaning.register
def _setup_refused(
    error: SetupRefused, record: TestRecord, exchanges: tuple[Exchange, ...]
) -> bool:
    """A refused step blocked the test: every id not measurable, the note naming the one cause
    (the same words for every test it blocks), the message the exchange that showed it."""
    _not_measurable(error, record, exchanges)
    record.message = error.detail
    return True


@meaning.register
def _violation(
    error: ContractViolation, record: TestRecord, exchanges: tuple[Exchange, ...]
) -> bool:
    """The target broke a rule: its ids fail (all the test's ids if it names none); ids that
    held pass, and the test's other ids were not reached, so they are not measurable. A combined
    violation (``ContractViolation.combined``) gives each broken id the evidence of its part."""
    ids = record.requirement_ids
    broken = tuple(i for i in error.requirement_ids if i in ids) or ids
    held = set(error.passed_ids) - set(broken)
    breakdown = next((p for p in (error, *error.parts) if isinstance(p, BREAKDOWNS)), None)
    if breakdown is not None:
        record.breakdown = breakdown.title
    record.outcomes = {
        i: Outcome.FAIL if i in broken else (Outcome.PASS if i in held else Outcome.NOT_MEASURABLE)
        for i in ids
    }
    record.note = {
        i: "its test stopped at an earlier failure"
        for i in ids
        if i not in broken and i not in held
    }
    record.message = str(error)
    record.evidence = _violation_evidence(record.test_id, error, broken, exchanges)
    for part in error.parts:
        part_ids = tuple(i for i in part.requirement_ids if i in broken)
        for rid in part_ids:
            record.evidence_by_requirement.setdefault(
                rid, _violation_evidence(record.test_id, part, part_ids, exchanges)
            )
    return True


@meaning.register
def _convention_miss(
    error: ConventionMiss, record: TestRecord, exchanges: tuple[Exchange, ...]
) -> bool:
    """An undeclared convention the test could not go past: its ids are not measurable at the
    interface level (the note naming the key), and the miss is a difference (drop-in level)."""
    ids = record.requirement_ids
    record.differences += (_difference_of(record.test_id, error, ids),)
    unjudged = tuple(i for i in error.requirement_ids if i in ids) or ids
    return meaning(
        NotMeasurable(convention_note(error.key), unjudged, error.passed_ids), record, exchanges
    )


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
