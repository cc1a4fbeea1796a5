"""The selftest's measured result as JSON (``conformance selftest --record FILE``): write, read.

One entry per catalogue entry a side ran: its side, its name, the requirement set it declares
(``expected``: empty for a correct-but-different variant), the set the kit actually failed
(``failed``: null when the run gave no verdict) and whether it came out exactly (a fault caught
with exactly its declared set; a correct variant passed exactly). With them, the sides that ran
and the selection that chose the entries, so a reader knows whether the record is whole.

``tests/spec_trace/generate.py --record FILE`` reads it for the kill rates of ``docs/trace.md``
and of ``conformance/catalogue/kill_rates.json``; ``exact_by_entry`` is that reading.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from conformance.json_types import JsonObject, JsonValue
from conformance.selftest.catches import EXACT, FaultReport, SideResult

FORMAT = "conformance-selftest-record/1"


def _ids(ids: frozenset[str] | None) -> JsonValue:
    return None if ids is None else list[JsonValue](sorted(ids))


def _entry(side: str, report: FaultReport) -> JsonObject:
    return {
        "side": side,
        "name": report.name,
        "expected": _ids(report.declared),
        "failed": _ids(report.failed),
        "exact": report.passed if report.correct else report.caught == EXACT,
    }


def record(runs: Sequence[SideResult], selection: Mapping[str, JsonValue]) -> JsonObject:
    """The record of these sides' runs; ``selection``: the options that chose the entries."""
    reports = sorted(
        ((run.side, r) for run in runs for r in (*run.faults, *run.correct)),
        key=lambda pair: (pair[0], pair[1].name),
    )
    entries: list[JsonValue] = [_entry(side, report) for side, report in reports]
    sides: list[JsonValue] = [run.side for run in runs]
    return {
        "format": FORMAT,
        "sides": sides,
        "selection": {k: v for k, v in selection.items() if v},
        "entries": entries,
    }


def write_record(
    path: Path, runs: Sequence[SideResult], selection: Mapping[str, JsonValue]
) -> None:
    path.write_text(json.dumps(record(runs, selection), indent=2) + "\n", "utf-8")


def read_record(path: Path) -> JsonObject:
    """A record file, checked for its format; a ``ValueError`` names what is wrong."""
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a selftest record ({FORMAT})")
    if not isinstance(data.get("entries"), list) or not isinstance(data.get("sides"), list):
        raise ValueError(f"{path}: a record holds a list of sides and a list of entries")
    return data


def exact_by_entry(data: JsonObject) -> dict[tuple[str, str], bool]:
    """(side, entry name) -> whether it came out exactly, for every entry the record holds."""
    entries = data["entries"]
    assert isinstance(entries, list)
    found: dict[tuple[str, str], bool] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not {"side", "name", "exact"} <= entry.keys():
            raise ValueError(f"a record entry lacks side, name or exact: {entry!r}")
        found[(str(entry["side"]), str(entry["name"]))] = entry["exact"] is True
    return found
