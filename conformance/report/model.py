"""The report model: plain dataclasses for one conformance run, and the verdict rule.

Every output format (JSON, Markdown, HTML, JUnit, Allure) is a pure function of a ``Report``.
Nothing in here talks to a target or to pytest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from conformance.json_types import JsonObject

SCHEMA_VERSION = "1.5"  # a minor version only adds keys and values (docs/reports.md lists them)


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


class Verdict(StrEnum):
    CONFORMANT = "conformant"
    CONFORMANT_WITH_EXCEPTIONS = "conformant-with-declared-exceptions"
    INCOMPLETE = "incomplete"  # no failure, but something in scope was not measured, undeclared
    NOT_CONFORMANT = "not-conformant"


@dataclass(frozen=True)
class Exchange:
    """One request and its response, secrets already redacted, bodies already truncated."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str | None
    status: int | None  # None: no response (transport error)
    response_headers: dict[str, str]
    response_body: str | None
    elapsed_ms: float


@dataclass(frozen=True)
class Evidence:
    """Why a test failed: the rule, expected against received, and how to reproduce it."""

    test_id: str
    requirement_ids: tuple[str, ...]
    title: str
    expected: str
    received: str
    curl: str | None
    exchanges: tuple[Exchange, ...] = ()
    check: str | None = None  # fuzz stage: the schemathesis check that failed
    seed: int | None = None  # fuzz stage: the seed that reproduces it


class Level(StrEnum):
    """The two questions a run answers. Interface: the specification's words, what follows from
    them, and what the profile declares explicitly. Drop-in: the interface, plus the production
    conventions (every key's default) the profile leaves undeclared."""

    INTERFACE = "interface"
    DROP_IN = "drop-in"


@dataclass(frozen=True)
class Difference:
    """Where the target departs from a production convention its profile does not declare (a
    key's default): a drop-in difference, never an interface failure. ``key`` is the profile key
    that would declare the target's own choice."""

    requirement_ids: tuple[str, ...]
    key: str
    convention: str  # the convention's value, as the key's default has it
    received: str  # what the target did instead
    title: str
    test_id: str = ""
    curl: str | None = None


@dataclass(frozen=True)
class TestResult:
    """One executed test (scenario or fuzzed operation) and the requirements it speaks for."""

    test_id: str
    stage: str  # "scenarios" | "fuzz"
    requirement_ids: tuple[str, ...]
    outcome: Outcome
    duration_s: float
    message: str = ""
    evidence: Evidence | None = None


@dataclass(frozen=True)
class RequirementResult:
    id: str
    section: str
    text: str
    basis: str  # "stated" | "inferred" | "declared" | "convention"
    outcome: Outcome
    tests: tuple[str, ...]
    evidence: tuple[Evidence, ...] = ()
    note: str = ""  # e.g. "baseline entry now passes: remove it", or why it was not measured
    subject: str = "server"  # whose rule it is: "server" or "client" (the client stage)
    differences: tuple[Difference, ...] = ()  # drop-in: conventions the target departs from


@dataclass(frozen=True)
class StageSummary:
    name: str
    tests: int
    duration_s: float
    details: JsonObject = field(default_factory=dict)  # fuzz cases and seed, p-values, ...


@dataclass(frozen=True)
class Report:
    suite_version: str
    contract_sha256: str
    catalogue_sha256: str
    target_url: str
    target_fingerprint: str
    profile: dict[str, object]  # as the profile file holds it, secrets redacted
    started_at: str  # ISO 8601 UTC
    duration_s: float
    requirements: tuple[RequirementResult, ...]
    stages: tuple[StageSummary, ...] = ()
    schema_version: str = SCHEMA_VERSION
    tests: tuple[TestResult, ...] = ()  # every executed test (JUnit per-test detail, diffs)

    @property
    def counts(self) -> dict[str, int]:
        counts = {outcome.value: 0 for outcome in Outcome}
        for requirement in self.requirements:
            counts[requirement.outcome.value] += 1
        return counts

    @property
    def verdict(self) -> Verdict:
        return verdict_of(r.outcome for r in self.requirements)

    @property
    def differences(self) -> tuple[Difference, ...]:
        """Each convention the target departs from, once per key and what it did."""
        seen: dict[tuple[str, str], Difference] = {}
        for requirement in self.requirements:
            for found in requirement.differences:
                seen.setdefault((found.key, found.received), found)
        return tuple(seen.values())

    @property
    def drop_in_verdict(self) -> Verdict:
        """The verdict at the drop-in level: the interface verdict, made not conformant by any
        convention the target departs from."""
        return drop_in_verdict_of(self.verdict, bool(self.differences))

    def verdict_at(self, level: Level) -> Verdict:
        return self.verdict if level is Level.INTERFACE else self.drop_in_verdict

    @property
    def applicable(self) -> int:
        """Requirements in scope, less the not-applicable (optional capabilities not claimed)."""
        return sum(1 for r in self.requirements if r.outcome is not Outcome.NOT_APPLICABLE)

    @property
    def measured(self) -> int:
        """Requirements whose outcome is a judgement of the target (of all in the run's scope)."""
        return sum(1 for r in self.requirements if r.outcome in JUDGED)

    @property
    def not_measured(self) -> tuple[str, ...]:
        """Ids in scope that were not judged, declared or not (the complement of measured, less
        the not-applicable: optional capabilities the target does not claim)."""
        return tuple(
            r.id
            for r in self.requirements
            if r.outcome not in JUDGED and r.outcome is not Outcome.NOT_APPLICABLE
        )


def worst(outcomes: Iterable[Outcome]) -> Outcome:
    """The outcome a requirement takes from its tests' outcomes (PASS when there are none)."""
    return max(outcomes, key=SEVERITY.__getitem__, default=Outcome.PASS)


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
