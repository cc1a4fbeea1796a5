"""Findings: the one vocabulary in which every stage's judges speak. A ``Finding`` is one
requirement judged (or not) from what the stage recorded: passed, failed (what was expected, what
was received), a spec doubt (failed only on an element the contract does not show or infers,
with which), not measurable (with why) or not configured (with the profile key that would enable
it). ``conclusion.conclude`` raises a test's findings as its ending (a spec doubt has none);
``records.record_of`` folds them into its record, for a stage that records its tests itself."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.verdict.outcome import Outcome

EVERY = ""  # the requirement of a finding that speaks for every requirement of the test reading it


@dataclass(frozen=True)
class Finding:
    """One requirement, judged (or not) on what a stage recorded."""

    requirement: str  # EVERY: each requirement of the test that reads the finding
    outcome: Outcome  # PASS, FAIL, SPEC_DOUBT, NOT_MEASURABLE or NOT_CONFIGURED
    title: str = ""
    expected: str = ""
    received: str = ""
    note: str = ""  # why not judged (not measurable, not configured), or doubted
    key: str = ""  # not configured: the profile key that would enable it


def passed(requirement: str, title: str = "", received: str = "") -> Finding:
    """The requirement held (``received``: the figure that shows it, if any)."""
    return Finding(requirement, Outcome.PASS, title, received=received)


def failed(requirement: str, title: str, expected: str, received: str) -> Finding:
    """The target broke the requirement: what was expected, what was received."""
    return Finding(requirement, Outcome.FAIL, title, expected, received)


def doubted(requirement: str, title: str, expected: str, received: str, note: str) -> Finding:
    """The target failed a check that touches only an element the contract does not show or
    infers (``note`` says which): a spec doubt, not a failure."""
    return Finding(requirement, Outcome.SPEC_DOUBT, title, expected, received, note)


def unmeasured(requirement: str, note: str) -> Finding:
    """The requirement could not be judged on this run, and ``note`` says why."""
    return Finding(requirement, Outcome.NOT_MEASURABLE, note=note)


def not_applicable(requirement: str, note: str) -> Finding:
    """The requirement's condition never arose on this run (a rule about a header the target
    never sent): nothing held or broke, and ``note`` says why; the verdict ignores it."""
    return Finding(requirement, Outcome.NOT_APPLICABLE, note=note)


def unconfigured(requirement: str, key: str, note: str) -> Finding:
    """The profile declares nothing to judge the requirement against: ``key`` would."""
    return Finding(requirement, Outcome.NOT_CONFIGURED, note=note, key=key)
