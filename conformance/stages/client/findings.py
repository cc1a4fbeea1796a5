"""A judge's verdict on one requirement in one scenario, and how a scenario's findings become the
test's ending (a combined violation, not measurable, or a pass)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conformance.errors import ContractViolation, NotMeasurable

PASS, FAIL, UNMEASURED = "pass", "fail", "not-measurable"


@dataclass(frozen=True)
class Finding:
    """One requirement, judged (or not) on the recorded requests of one scenario."""

    requirement_id: str
    verdict: str  # PASS, FAIL or UNMEASURED
    title: str
    expected: str = ""
    received: str = ""


def passed(rid: str, title: str, received: str = "") -> Finding:
    return Finding(rid, PASS, title, received=received)


def failed(rid: str, title: str, expected: str, received: str) -> Finding:
    return Finding(rid, FAIL, title, expected, received)


def unmeasured(rid: str, why: str) -> Finding:
    return Finding(rid, UNMEASURED, why)


def conclude(findings: Sequence[Finding], sections: Sequence[str] = ()) -> None:
    """Raise what the findings add up to: each failed id with its own evidence; ids never
    judged are not measurable (with the reason); nothing raised when every id passed."""
    __tracebackhide__ = True
    broken = [f for f in findings if f.verdict == FAIL]
    failed_ids = {f.requirement_id for f in broken}
    open_ids = [
        f for f in findings if f.verdict == UNMEASURED and f.requirement_id not in failed_ids
    ]
    unjudged = {f.requirement_id for f in open_ids}
    held = tuple(
        dict.fromkeys(
            f.requirement_id
            for f in findings
            if f.verdict == PASS and f.requirement_id not in failed_ids | unjudged
        )
    )
    if broken:
        parts = tuple(
            ContractViolation((f.requirement_id,), f.title, f.expected, f.received, None, sections)
            for f in broken
        )
        combined = ContractViolation(
            tuple(dict.fromkeys(f.requirement_id for f in broken)),
            "; ".join(f.title for f in broken),
            " | ".join(f.expected for f in broken),
            " | ".join(f.received for f in broken),
            None,
            sections,
        )
        combined.parts = parts
        combined.passed_ids = held
        raise combined
    if open_ids:
        raise NotMeasurable(
            "; ".join(f"{f.requirement_id}: {f.title}" for f in open_ids),
            tuple(dict.fromkeys(f.requirement_id for f in open_ids)),
            held,
        )
