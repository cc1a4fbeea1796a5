"""The suite's one exception root: the target is wrong, you ran me wrong, or it is unmeasurable."""

from __future__ import annotations

from collections.abc import Sequence


class ConformanceError(Exception):
    """Root of every error the suite raises on purpose."""


class ContractViolation(ConformanceError, AssertionError):
    """The target broke a rule. Reads, in order: rule, expected, received, reproduction."""

    def __init__(
        self,
        requirement_ids: Sequence[str],
        title: str,
        expected: str,
        received: str,
        curl: str | None = None,
        sections: Sequence[str] = (),
    ) -> None:
        self.requirement_ids = tuple(requirement_ids)
        self.title = title
        self.expected = expected
        self.received = received
        self.curl = curl
        self.sections = tuple(sections)
        self.passed_ids: tuple[str, ...] = ()  # checked in the same scenario, and held
        self.parts: tuple[ContractViolation, ...] = ()  # a combined violation's own breaks
        super().__init__(self.render())

    @classmethod
    def combined(
        cls, broken: Sequence[ContractViolation], passed: Sequence[str] = ()
    ) -> ContractViolation:
        """Several independent breaks of one test as one violation: its ``parts`` keep each
        break's own evidence, ``passed`` the ids checked alongside that held. A part of no id
        (no answer, a 5xx) breaks the whole test: the combined violation names no id."""
        ids = tuple(dict.fromkeys(i for v in broken for i in v.requirement_ids))
        if any(not v.requirement_ids for v in broken):
            ids = ()
        combined = cls(
            ids,
            "; ".join(v.title for v in broken),
            " | ".join(v.expected for v in broken),
            " | ".join(v.received for v in broken),
            broken[0].curl,
            tuple(dict.fromkeys(s for v in broken for s in v.sections)),
        )
        combined.passed_ids = tuple(i for i in dict.fromkeys(passed) if i not in ids)
        combined.parts = tuple(broken)
        return combined

    def render(self, test_ids: Sequence[str] = ()) -> str:
        """The block: rule, expected, received, reproduce. A violation that names no requirement
        speaks for its test's (``test_ids``, as the records read it)."""
        ids = ", ".join(self.requirement_ids or test_ids) or "(no requirement id)"
        where = f" (spec {', '.join(self.sections)})" if self.sections else ""
        lines = [
            f"Rule broken: {ids}{where}: {self.title}",
            f"Expected: {self.expected}",
            f"Received: {self.received}",
        ]
        if self.curl:
            lines.append(f"Reproduce: {self.curl}")
        return "\n".join(lines)


class ConventionMiss(ContractViolation):
    """The target departs from a production convention its profile does not declare (a key's
    default), where the test cannot go on without it: its requirements are not judged at the
    interface level (not measurable, naming ``key``), and the difference is listed at the
    drop-in level. Never an interface failure."""

    def __init__(
        self,
        requirement_ids: Sequence[str],
        title: str,
        expected: str,
        received: str,
        curl: str | None = None,
        sections: Sequence[str] = (),
        *,
        key: str,
        convention: str,
    ) -> None:
        self.key = key
        self.convention = convention
        super().__init__(requirement_ids, title, expected, received, curl, sections)


class NoAnswer(ContractViolation):
    """The target gave no answer, even to one retry: refused, reset or silent past the timeout."""


class UnboundedAnswer(ContractViolation):
    """The target's answer passed the size cap or the total deadline (a drip, an endless body)."""


class ServerError(ContractViolation):
    """The target answered a valid exchange with a 5xx: it failed, whatever the rule at stake."""


# What says the target broke down rather than chose: evidence at every level (a drop-in
# requirement's test that met one fails at the interface level too, ``verdict.levels``).
BREAKDOWNS = (NoAnswer, UnboundedAnswer, ServerError)


class UsageError(ConformanceError):
    """The suite was run wrongly (bad profile, unreachable target). Says what to do next."""

    def __init__(self, problem: str, what_to_do: str = "") -> None:
        self.problem = problem
        self.what_to_do = what_to_do
        super().__init__(self.render())

    def render(self) -> str:
        if not self.what_to_do:
            return self.problem
        return f"{self.problem}\nWhat to do: {self.what_to_do}"


class NotMeasurable(ConformanceError):
    """The behaviour cannot be observed on this target (no trigger, or our own budget ran out)."""

    def __init__(
        self, reason: str, requirement_ids: Sequence[str] = (), passed: Sequence[str] = ()
    ) -> None:
        self.reason = reason
        self.requirement_ids = tuple(requirement_ids)  # empty: every id of the test
        self.passed_ids = tuple(passed)  # checked in the same scenario before, and held
        super().__init__(reason)


class SetupRefused(NotMeasurable):
    """A step a scenario needs (not the one it judges) did not work: the target refused or
    garbled a valid request. The scenario is not measurable, blocked by that one cause (``cause``:
    the step and the status, the same words for every scenario it blocks); the step's own
    requirement judges it in its own test."""

    def __init__(self, what: str, received: str, curl: str | None = None) -> None:
        self.what = what
        self.received = received
        self.curl = curl
        super().__init__(f"{BLOCKED_PREFIX}the target did not let the suite {what}")

    @property
    def detail(self) -> str:
        """The step, what the target answered and how to reproduce it."""
        lines = [self.reason, f"Received: {self.received}"]
        return "\n".join([*lines, f"Reproduce: {self.curl}"] if self.curl else lines)


BLOCKED_PREFIX = "blocked by a refused step: "  # how a note names the one cause


class NotConfigured(NotMeasurable):
    """The profile leaves out an optional input (a foreign project, a legacy key) the test needs.

    A declared exception, like a capability declared absent: the requirement is *not configured*,
    and the report names the profile key that would enable it."""

    def __init__(
        self,
        profile_key: str,
        reason: str = "",
        requirement_ids: Sequence[str] = (),
        passed: Sequence[str] = (),
    ) -> None:
        self.profile_key = profile_key
        super().__init__(
            reason or f"the profile does not set {profile_key}", requirement_ids, passed
        )


class NotApplicable(ConformanceError):
    """The requirement judges a capability the specification does not require (round-robin,
    golden vectors of a hash function), and the profile does not claim it, or its condition never
    arose (``reason``: a rule about a header the client never sent): *not applicable*, neither
    judged nor a declared exception (an extended feature counts only where claimed)."""

    def __init__(
        self,
        key: str,
        value: object,
        requirement_ids: Sequence[str] = (),
        passed: Sequence[str] = (),
        reason: str | None = None,
    ) -> None:
        self.key = key
        self.value = value
        self.requirement_ids = tuple(requirement_ids)  # empty: every id of the test
        self.passed_ids = tuple(passed)  # judged in the same test, and held
        super().__init__(
            reason
            or f"not applicable: the profile declares {key}: {value}, and the specification "
            "does not require this capability"
        )


class Unsupported(ConformanceError):
    """The profile declares the capability absent: the requirement is unsupported, not passed."""

    def __init__(self, capability: str, requirement_ids: Sequence[str] = ()) -> None:
        self.capability = capability
        self.requirement_ids = tuple(requirement_ids)  # empty: every id of the test
        super().__init__(f"capability {capability!r} is declared absent in the target profile")
