"""Stage summaries as short readable lines, for the reports people read (Markdown and HTML).

A stage records its details as plain data (``StageSummary.details``). A stage that declares how
its details read (``Stage.describe`` and ``Stage.html`` in the registry) is read that way by
``read_stages``, given the stage readings by whoever writes the reports (the run's collector,
``conformance report``): the renderers see only the model. Otherwise records with a known meaning
(the bucketing test) read as a sentence and anything else as ``key: value`` pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Protocol

from conformance.json_types import JsonObject
from conformance.report.model import Report, StageSummary


class StageReading(Protocol):
    """How a stage reads its own details, as it declares (the registry's ``Stage`` is one)."""

    def lines(self, details: JsonObject) -> list[str] | None:
        """Its lines for ``details``; None: it declares no reading."""

    def drawn(self, details: JsonObject) -> str | None:
        """Its HTML for ``details``; None: it draws nothing."""


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


def summary_lines(stage: StageSummary) -> list[str]:
    """A stage's details as the stage reads them (``StageSummary.lines``), else key by key."""
    return list(stage.lines) if stage.lines is not None else stage_lines(stage.details)


def read_stages(report: Report, readings: Mapping[str, StageReading]) -> Report:
    """The report with each stage's own lines and HTML, as its reading (by stage name) gives
    them for its details; a stage with no reading here keeps what it has."""
    return replace(
        report,
        stages=tuple(
            _read(stage, readings[stage.name]) if stage.name in readings else stage
            for stage in report.stages
        ),
    )


def _read(stage: StageSummary, reading: StageReading) -> StageSummary:
    """The stage's declared lines for its details, then the outcome counts (details of outcome
    counts alone read key by key: the same line); and its HTML."""
    details = stage.details
    own = {k: v for k, v in details.items() if k != "outcomes"}
    described = reading.lines(own) if own else None
    lines = None
    if described is not None:
        counts = [f"outcomes: {value_text(details['outcomes'])}"] if "outcomes" in details else []
        lines = (*described, *counts)
    return replace(stage, lines=lines, html=reading.drawn(details))
