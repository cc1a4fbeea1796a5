"""The ``conformance report`` and ``conformance diff`` subcommands, through the real CLI entry."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.report import samples
from conformance.report.model import Outcome
from conformance.report.writer import write_reports


def _write(report_dir: Path, outcome: Outcome) -> Path:
    report = samples.conformant()
    first = replace(report.requirements[0], outcome=outcome)
    report = replace(report, requirements=(first, *report.requirements[1:]))
    write_reports(report, report_dir, formats=("json",))
    return report_dir / "conformance.json"


def test_report_rerenders_markdown_and_html(tmp_path: Path) -> None:
    _write(tmp_path, Outcome.PASS)
    assert main(["report", str(tmp_path)]) == 0
    assert (tmp_path / "conformance.md").read_text(encoding="utf-8").startswith("# ")
    assert "<html" in (tmp_path / "conformance.html").read_text(encoding="utf-8")


def test_report_on_missing_directory_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["report", str(tmp_path / "absent")]) == 2


def test_diff_exits_1_when_something_newly_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _write(tmp_path / "old", Outcome.PASS)
    new = _write(tmp_path / "new", Outcome.FAIL)
    assert main(["diff", str(old), str(new)]) == 1
    assert "newly fail" in capsys.readouterr().out.lower()
    assert main(["diff", str(new), str(old)]) == 0
