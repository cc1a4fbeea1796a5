"""``conformance selftest --record FILE``: each entry's side, declared and failed sets and whether
it came out exactly, written by the command and read back for the trace's kill rates."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from conformance.cli import selftest as selftest_command
from conformance.selftest import running as selftest
from conformance.selftest.catches import FaultReport, SideResult
from conformance.selftest.record import FORMAT, exact_by_entry, read_record, record
from conformance.selftest.sides import Side

A, AB = frozenset({"A"}), frozenset({"A", "B"})
SERVER = SideResult(
    "server",
    (
        FaultReport("exact", A, A, passed=True),
        FaultReport("wider", A, AB, passed=False),
        FaultReport("missed", A, frozenset(), passed=False),
        FaultReport("unjudged", A, None, passed=False),
    ),
)
VARIANTS = SideResult(
    "variants",
    (),
    correct=(
        FaultReport("good", frozenset(), frozenset(), passed=True),
        FaultReport("bad", frozenset(), A, passed=False),
    ),
)


def test_each_entry_says_its_side_sets_and_exactness() -> None:
    data = record([SERVER, VARIANTS], {"only": "", "faults": "x", "full": False})
    assert data["format"] == FORMAT and data["sides"] == ["server", "variants"]
    assert data["selection"] == {"faults": "x"}  # what was not given is left out
    entries = {(e["side"], e["name"]): e for e in data["entries"]}  # type: ignore[union-attr,index]
    assert entries[("server", "wider")] == {
        "side": "server",
        "name": "wider",
        "expected": ["A"],
        "failed": ["A", "B"],
        "exact": False,
    }
    assert entries[("server", "unjudged")]["failed"] is None
    assert exact_by_entry(data) == {
        ("server", "exact"): True,
        ("server", "missed"): False,
        ("server", "unjudged"): False,
        ("server", "wider"): False,
        ("variants", "bad"): False,
        ("variants", "good"): True,
    }


def test_a_file_that_is_not_a_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"entries": []}', "utf-8")
    with pytest.raises(ValueError, match="not a selftest record"):
        read_record(path)


def test_the_command_writes_the_record_after_the_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run_side(side: Side, options: argparse.Namespace, root: Path, position: str) -> SideResult:
        return SERVER

    monkeypatch.setattr(selftest, "check_checkout", lambda sides, root: None)
    monkeypatch.setattr(selftest, "run_side", run_side)
    path = tmp_path / "record.json"
    parser = argparse.ArgumentParser()
    selftest_command.add_parser(parser.add_subparsers(dest="command"))
    options = parser.parse_args(["selftest", "--only", "exact", "--record", str(path)])
    assert selftest.run_selftest(options) == 1  # not every fault caught exactly
    data = read_record(path)
    assert data == json.loads(path.read_text("utf-8"))
    assert data["sides"] == ["server"] and data["selection"] == {"only": "exact"}
    assert len(exact_by_entry(data)) == 4
    assert f"recorded each entry's verdict in {path}" in capsys.readouterr().out
