"""How one requirement or one test ended (``Outcome``), and the worst of several (``worst``)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Outcome(StrEnum):
    """How one requirement (or one test) ended. A skip is never a pass."""

    PASS = "pass"
    FAIL = "fail"
    UNSUPPORTED = "unsupported"  # the profile declared the capability absent
    NOT_CONFIGURED = "not-configured"  # the profile leaves out an optional input the test needs
    NOT_MEASURABLE = "not-measurable"  # not judged for an undeclared reason: verdict incomplete
    KNOWN_FAILURE = "known-failure"  # failed, and listed in the profile's baseline
    SPEC_DOUBT = "spec-doubt"  # failed only on a not-shown / inferred element of the contract
    # judges an optional capability the specification does not require and the profile does not
    # claim (round-robin, golden vectors of a hash function): not judged, not an exception
    NOT_APPLICABLE = "not-applicable"


# When several tests check one requirement, the requirement takes the worst of their outcomes.
SEVERITY: dict[Outcome, int] = {
    Outcome.PASS: 0,
    Outcome.NOT_APPLICABLE: 1,
    Outcome.UNSUPPORTED: 2,
    Outcome.NOT_CONFIGURED: 3,
    Outcome.NOT_MEASURABLE: 4,
    Outcome.SPEC_DOUBT: 5,
    Outcome.KNOWN_FAILURE: 6,
    Outcome.FAIL: 7,
}

# Outcomes that are a judgement of the target: the requirement was measured.
JUDGED = frozenset({Outcome.PASS, Outcome.FAIL, Outcome.KNOWN_FAILURE, Outcome.SPEC_DOUBT})
# Outcomes the user declared (profile capabilities, baseline, optional inputs left out) or that
# only doubt the contract: they keep a verdict conformant, with declared exceptions.
DECLARED = frozenset(
    {Outcome.UNSUPPORTED, Outcome.NOT_CONFIGURED, Outcome.KNOWN_FAILURE, Outcome.SPEC_DOUBT}
)


def worst(outcomes: Iterable[Outcome]) -> Outcome:
    """The outcome a requirement takes from its tests' outcomes (PASS when there are none)."""
    return max(outcomes, key=SEVERITY.__getitem__, default=Outcome.PASS)
