"""The two levels as a reader sees them: the drop-in phrase beside the interface verdict, and the
conventions a target departs from, grouped by the profile key that would declare its choice."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.model import Report
from conformance.verdict.difference import Difference
from conformance.verdict.run_verdict import Verdict

KEYS_NAMED = 5  # keys named in the phrase; more are counted


@dataclass(frozen=True)
class KeyDifferences:
    """Every difference one key's convention shows: what the convention is, what the target did
    (each answer once), and the requirements whose tests saw it."""

    key: str
    convention: str
    received: tuple[str, ...]
    requirement_ids: tuple[str, ...]
    curl: str | None


# The key of a difference no single profile key declares: a requirement resting on a convention
# that only ``conventions: production`` declares (``verdict.levels``).
ALL_CONVENTIONS = "conventions"


def by_key(report: Report) -> tuple[KeyDifferences, ...]:
    """The run's differences, one entry per key and convention, in the order first seen (one
    key's differences share its default; those only ``conventions`` declares differ by theirs)."""
    grouped: dict[tuple[str, str], list[Difference]] = {}
    for requirement in report.requirements:
        for difference in requirement.differences:
            grouped.setdefault((difference.key, difference.convention), []).append(difference)
    return tuple(
        KeyDifferences(
            key=key,
            convention=convention,
            received=tuple(dict.fromkeys(d.received for d in found)),
            requirement_ids=tuple(sorted({i for d in found for i in d.requirement_ids})),
            curl=found[0].curl,
        )
        for (key, convention), found in grouped.items()
    )


def named(entry: KeyDifferences) -> str:
    """How the phrase names one difference: its key, or for one only ``conventions`` declares,
    ``conventions`` with the requirement it rests under."""
    if entry.key == ALL_CONVENTIONS and entry.requirement_ids:
        return f"{ALL_CONVENTIONS} ({', '.join(entry.requirement_ids)})"
    return entry.key


def drop_in_phrase(report: Report) -> str:
    """The second level in words: "drop-in compatible", or "not drop-in compatible: 2
    conventions differ (statuses.create_configuration, errors.code_field)", each named by the
    key that would declare the target's own choice."""
    keys = [named(entry) for entry in by_key(report)]
    if keys:
        shown = ", ".join(keys[:KEYS_NAMED])
        more = f" and {len(keys) - KEYS_NAMED} more" if len(keys) > KEYS_NAMED else ""
        noun = "convention differs" if len(keys) == 1 else "conventions differ"
        return f"not drop-in compatible: {len(keys)} {noun} ({shown}{more})"
    if report.drop_in_verdict in (Verdict.NOT_CONFORMANT, Verdict.INCOMPLETE):
        return f"drop-in: {report.drop_in_verdict.value}, as the interface"
    return "drop-in compatible"


def levels_sentence(report: Report) -> str:
    """Both levels in one sentence: "conformant to the interface; not drop-in compatible: ..."."""
    return f"{report.verdict.value} to the interface; {drop_in_phrase(report)}"
