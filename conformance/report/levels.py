"""The two levels as a reader sees them: the drop-in phrase beside the interface verdict, and the
conventions a target departs from, grouped by the profile key that would declare its choice."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.model import Difference, Report, Verdict

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


def by_key(report: Report) -> tuple[KeyDifferences, ...]:
    """The run's differences, one entry per key, in the order first seen."""
    grouped: dict[str, list[Difference]] = {}
    for requirement in report.requirements:
        for difference in requirement.differences:
            grouped.setdefault(difference.key, []).append(difference)
    return tuple(
        KeyDifferences(
            key=key,
            convention=found[0].convention,
            received=tuple(dict.fromkeys(d.received for d in found)),
            requirement_ids=tuple(sorted({i for d in found for i in d.requirement_ids})),
            curl=found[0].curl,
        )
        for key, found in grouped.items()
    )


def drop_in_phrase(report: Report) -> str:
    """The second level in words: "drop-in compatible", or "not drop-in compatible: 2
    conventions differ (statuses.create_configuration, errors.code_field)", each named by the
    key that would declare the target's own choice."""
    keys = [entry.key for entry in by_key(report)]
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
