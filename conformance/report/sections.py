"""Spec sections: requirements grouped by the section they come from, in document order."""

from __future__ import annotations

import re
from collections.abc import Iterable

from conformance.report.model import Report, RequirementResult
from conformance.verdict.outcome import Outcome

_NUMBER = re.compile(r"\d+|\D+")
UNSECTIONED = "(no section)"


def section_key(section: str) -> tuple[tuple[int, int | str], ...]:
    """Natural order: "4.2" before "4.10", numbers before words."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in _NUMBER.findall(section)
    )


def by_section(report: Report) -> list[tuple[str, list[RequirementResult]]]:
    """Sections in natural order, each with its requirements sorted by id."""
    groups: dict[str, list[RequirementResult]] = {}
    for requirement in report.requirements:
        groups.setdefault(requirement.section or UNSECTIONED, []).append(requirement)
    return [
        (section, sorted(groups[section], key=lambda r: r.id))
        for section in sorted(groups, key=section_key)
    ]


def outcome_counts(requirements: Iterable[RequirementResult]) -> dict[Outcome, int]:
    counts = dict.fromkeys(Outcome, 0)
    for requirement in requirements:
        counts[requirement.outcome] += 1
    return counts
