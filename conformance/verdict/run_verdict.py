"""A run's verdict at each of its two levels: ``Verdict``, ``Level`` and the rules from outcomes."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from conformance.verdict.outcome import DECLARED, Outcome


class Verdict(StrEnum):
    CONFORMANT = "conformant"
    CONFORMANT_WITH_EXCEPTIONS = "conformant-with-declared-exceptions"
    INCOMPLETE = "incomplete"  # no failure, but something in scope was not measured, undeclared
    NOT_CONFORMANT = "not-conformant"


class Level(StrEnum):
    """The two questions a run answers. Interface: the specification's words, what follows from
    them, and what the profile declares explicitly. Drop-in: the interface, plus the production
    conventions (every key's default) the profile leaves undeclared."""

    INTERFACE = "interface"
    DROP_IN = "drop-in"


def verdict_of(outcomes: Iterable[Outcome]) -> Verdict:
    """FAIL anywhere: not conformant. Else anything not measurable (not declared): incomplete.
    Else declared exceptions or doubts: conformant with exceptions. Else conformant (a
    not-applicable requirement, an optional capability not claimed, changes nothing)."""
    seen = set(outcomes)
    if Outcome.FAIL in seen:
        return Verdict.NOT_CONFORMANT
    if Outcome.NOT_MEASURABLE in seen:
        return Verdict.INCOMPLETE
    if seen & DECLARED:
        return Verdict.CONFORMANT_WITH_EXCEPTIONS
    return Verdict.CONFORMANT


def drop_in_verdict_of(interface: Verdict, differs: bool) -> Verdict:
    """Drop-in compatibility needs the interface first: a difference from a convention makes a
    run not drop-in compatible (``NOT_CONFORMANT`` at that level), whatever the interface says."""
    return Verdict.NOT_CONFORMANT if differs else interface
