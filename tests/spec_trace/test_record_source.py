"""The trace from a selftest record: a small hand-written record sets the kill rates, an entry it
does not hold counts as not caught, the dialect's as declared, and both outputs name the source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spec_trace.figures import Source
from spec_trace.generate import generate, main
from spec_trace.trace import SIDE_OF_FAULTS, Entry, faults, measure

RECORD = {
    "format": "conformance-selftest-record/1",
    "sides": ["server"],
    "selection": {"only": "create-reuses-id,record-wrong-project"},
    "entries": [
        {
            "side": "server",
            "name": "create-reuses-id",
            "expected": ["CFG-CREATE-NEW-ID"],
            "failed": ["CFG-CREATE-NEW-ID"],
            "exact": True,
        },
        {
            "side": "server",
            "name": "record-wrong-project",
            "expected": ["CFG-RECORD-IDS-MATCH-REQUEST"],
            "failed": [],
            "exact": False,
        },
    ],
}


def test_a_record_measures_held_entries_and_leaves_the_dialect_declared() -> None:
    entries = [
        Entry("held", "server", frozenset({"A"})),
        Entry("absent", "load", frozenset({"A"})),
        Entry("dialect-one", "dialect", frozenset({"A"}), exact=False),
    ]
    measured = {("server", "held"): True}
    assert [e.exact for e in measure(entries, measured, SIDE_OF_FAULTS)] == [True, False, False]
    assert measure(entries, None, SIDE_OF_FAULTS) == entries  # no record: the declarations


def test_the_trace_and_the_data_file_read_a_record(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(RECORD), "utf-8")
    trace, text = generate(Source(path))
    data = json.loads(text)
    assert (data["source"], data["record"]) == ("recorded", str(path.resolve()))
    # S16 (id: number): create-reuses-id caught exactly, escape-management-429 not in the record.
    assert data["statements"]["S16"] == {"caught": 1, "faults": 2}
    row = next(line for line in trace.splitlines() if line.startswith("| S16 |"))
    assert "| 1/2 |" in row
    assert f"measured by the selftest run recorded in `{path.resolve()}`" in trace
    assert "sides: server" in trace and "create-reuses-id,record-wrong-project" in trace
    sided = sum(1 for f in faults() if f.catalogue in SIDE_OF_FAULTS)
    assert f"the {sided - 2} fault(s) and " in trace  # all but the two the record holds


def test_without_a_record_the_figures_are_the_declarations() -> None:
    trace, text = generate(Source())
    data = json.loads(text)
    assert (data["source"], data["record"]) == ("declared", None)
    assert data["statements"]["S16"] == {"caught": 2, "faults": 2}
    assert "as the catalogues declare them" in trace and "not from a measured run" in trace


def test_a_record_outside_the_checkout_is_refused(tmp_path: Path) -> None:
    """The data file names the record and test_trace regenerates from it: it must be kept."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(RECORD), "utf-8")
    with pytest.raises(SystemExit) as refused:
        main(["--record", str(path)])
    assert refused.value.code == 2
