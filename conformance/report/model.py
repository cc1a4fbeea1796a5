"""The report model: plain dataclasses for one conformance run.

Every output format (JSON, Markdown, HTML, JUnit, Allure) is a pure function of a ``Report``.
Nothing in here talks to a target or to pytest. The words it is made of (outcomes, verdicts,
levels, evidence, differences) are the verdict room's (``conformance.verdict``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.json_types import JsonObject
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.outcome import JUDGED, Outcome
from conformance.verdict.run_verdict import Level, Verdict, drop_in_verdict_of, verdict_of

SCHEMA_VERSION = "1.5"  # a minor version only adds keys and values (docs/reports.md lists them)


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
    # The stage's own reading of its details (``report.stage_text.read_stages``): its lines for
    # the reports people read (None: key/value lines) and its HTML for conformance.html (None: it
    # draws nothing). Not in conformance.json: the writer reads them from the details each time.
    lines: tuple[str, ...] | None = None
    html: str | None = None


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
