"""Stage summaries as short readable lines, for the reports people read (Markdown and HTML).

A stage records its details as plain data (``StageSummary.details``). A stage that declares how
its details read (``Stage.describe`` in the registry, imported when used) is read that way;
otherwise records with a known meaning (the bucketing test) read as a sentence and anything else
as ``key: value`` pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from conformance.json_types import JsonObject
from conformance.stages import named


def value_text(value: object) -> str:
    """One value, compactly: floats to 4 significant digits, lists and maps inline."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return ", ".join(f"{k} {value_text(v)}" for k, v in sorted(value.items()))
    return str(value)


def _bucketing(record: Mapping[str, object]) -> str:
    """The chi-square record of the weighted split (see scenarios/test_bucketing.py)."""
    head = f"bucketing ({record.get('requirement', '?')})"
    parts: list[str] = []
    if "units" in record:
        parts.append(f"{record['units']} units")
    if "observed" in record and "expected" in record:
        listed = record["expected"]
        expected = [round(_float(e)) for e in listed] if isinstance(listed, list) else listed
        parts.append(
            f"observed {value_text(record['observed'])} against expected {value_text(expected)}"
        )
    if "chi_square" in record:
        freedom = record.get("degrees_of_freedom")
        parts.append(
            f"chi-square {value_text(record['chi_square'])}"
            + (f" with {freedom} degrees of freedom" if freedom is not None else "")
        )
    if "p_value" in record:
        alpha = record.get("alpha")
        parts.append(
            f"p = {value_text(record['p_value'])}"
            + (f" (fails below {value_text(alpha)})" if alpha is not None else "")
        )
    if "seed" in record:
        parts.append(f"seed {record['seed']}")
    return f"{head}: {', '.join(parts)}" if parts else head


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) else float(str(value))


# Detail keys whose record reads better as a sentence than as key/value pairs.
SENTENCES: dict[str, Callable[[Mapping[str, object]], str]] = {
    "bucketing": _bucketing,
}


def stage_lines(details: Mapping[str, object]) -> list[str]:
    """One line per detail key, in key order."""
    lines = []
    for key, value in sorted(details.items()):
        sentence = SENTENCES.get(key)
        if sentence is not None and isinstance(value, Mapping):
            lines.append(sentence(value))
        else:
            lines.append(f"{key}: {value_text(value)}")
    return lines


def summary_lines(name: str, details: JsonObject) -> list[str]:
    """A stage's details as the stage declares they read, then the outcome counts."""

    stage = named(name)
    if stage is None or stage.describe is None:
        return stage_lines(details)
    own = {k: v for k, v in details.items() if k != "outcomes"}
    lines = (stage.lines(own) or []) if own else []
    if "outcomes" in details:
        lines.append(f"outcomes: {value_text(details['outcomes'])}")
    return lines
