"""A test's conclusion: what its findings add up to, raised as the test's ending (one combined
violation, not configured, not measurable, or nothing when every requirement passed), which the
classification reads back per requirement."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from conformance.catalogue.requirements import sections_of
from conformance.errors import ContractViolation, NotApplicable, NotConfigured, NotMeasurable
from conformance.verdict.finding import Finding
from conformance.verdict.outcome import Outcome


def spec_sections(requirement_id: str) -> tuple[str, ...]:
    """The spec section a requirement's failure cites: its catalogue section, none for a
    convention (the specification does not say it) or an id the catalogue does not hold."""
    return sections_of([requirement_id])


def conclude(
    findings: Sequence[Finding],
    sections: Sequence[str] = (),
    *,
    sections_of: Callable[[str], Sequence[str]] | None = None,
) -> None:
    """Raise what the findings add up to: each failed requirement with its own evidence; those
    never judged are not configured (the profile key) or not measurable (the reason), or not
    applicable (a rule whose condition never arose); nothing raised when every one passed. A
    finding of ``EVERY`` requirement speaks for the whole test.
    Each failure cites ``sections``, or ``sections_of`` its requirement (``spec_sections``)."""
    __tracebackhide__ = True
    broken = _of(findings, Outcome.FAIL)
    failed_ids = {f.requirement for f in broken}
    unset = [f for f in _of(findings, Outcome.NOT_CONFIGURED) if f.requirement not in failed_ids]
    open_ = [f for f in _of(findings, Outcome.NOT_MEASURABLE) if f.requirement not in failed_ids]
    unjudged = failed_ids | {f.requirement for f in unset + open_}
    held = _ids(f for f in _of(findings, Outcome.PASS) if f.requirement not in unjudged)
    if broken:
        raise ContractViolation.combined(
            [
                ContractViolation(
                    _ids([f]),
                    f.title,
                    f.expected,
                    f.received,
                    None,
                    tuple(sections_of(f.requirement)) if sections_of else tuple(sections),
                )
                for f in broken
            ],
            held,
        )
    if unset:
        raise NotConfigured(unset[0].key, _reasons(unset), _ids(unset), held)
    if open_:
        raise NotMeasurable(_reasons(open_), _ids(open_), held)
    moot = [f for f in _of(findings, Outcome.NOT_APPLICABLE) if f.requirement not in held]
    if moot:  # a rule whose condition never arose: neither held nor broken
        raise NotApplicable(moot[0].key, None, _ids(moot), held, _reasons(moot))


def _of(findings: Sequence[Finding], outcome: Outcome) -> list[Finding]:
    return [f for f in findings if f.outcome is outcome]


def _ids(findings: Iterable[Finding]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f.requirement for f in findings if f.requirement))


def _reasons(findings: Sequence[Finding]) -> str:
    return "; ".join(f"{f.requirement}: {f.note}" if f.requirement else f.note for f in findings)
