"""The ``conformance report`` and ``conformance diff`` subcommands, through the real CLI entry,
and the exit status of ``conformance run`` for each verdict (incomplete: 3, unless accepted)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import EPILOG, main
from conformance.report.writer import write_reports
from conformance.run.launch import (
    EXIT_CONFORMANT,
    EXIT_INCOMPLETE,
    EXIT_NOT_CONFORMANT,
    EXIT_USAGE,
    exit_status,
)
from conformance.verdict.outcome import Outcome
from conformance.verdict.run_verdict import Verdict
from tests.support import sample_reports as samples
from tests.support.conformance_cli import run_conformance


def _write(report_dir: Path, outcome: Outcome) -> Path:
    report = samples.conformant()
    first = replace(report.requirements[0], outcome=outcome)
    report = replace(report, requirements=(first, *report.requirements[1:]))
    write_reports(report, report_dir, formats=("json",))
    return report_dir / "conformance.json"


def test_report_rerenders_markdown_and_html(tmp_path: Path) -> None:
    _write(tmp_path, Outcome.PASS)
    assert main(["report", str(tmp_path)]) == 0
    markdown = (tmp_path / "conformance.md").read_text(encoding="utf-8")
    assert markdown.startswith("# ")
    assert "tier pr, seed 12345: 1900 cases" in markdown  # the fuzz stage reads its details
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


def test_diff_exits_1_when_a_pass_becomes_not_measurable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _write(tmp_path / "old", Outcome.PASS)
    new = _write(tmp_path / "new", Outcome.NOT_MEASURABLE)
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "No longer passing (1):" in out
    assert "Verdict: conformant -> incomplete" in out
    assert main(["diff", str(new), str(old)]) == 0


@pytest.mark.parametrize(
    ("verdict", "accept", "status"),
    [
        (Verdict.CONFORMANT, False, 0),
        (Verdict.CONFORMANT_WITH_EXCEPTIONS, False, 0),
        (Verdict.NOT_CONFORMANT, False, 1),
        (Verdict.NOT_CONFORMANT, True, 1),
        (Verdict.INCOMPLETE, False, 3),
        (Verdict.INCOMPLETE, True, 0),
    ],
)
def test_exit_status_of_each_verdict(verdict: Verdict, accept: bool, status: int) -> None:
    assert exit_status(verdict, accept_incomplete=accept) == status


def test_exit_statuses_are_distinct_and_documented() -> None:
    statuses = (EXIT_CONFORMANT, EXIT_NOT_CONFORMANT, EXIT_USAGE, EXIT_INCOMPLETE)
    assert statuses == (0, 1, 2, 3)
    assert "3 incomplete" in " ".join(EPILOG.split())
    assert "--accept-incomplete" in EPILOG


def run_cli(report_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Certify the embedded server for two requirements, deselecting the one test of the second
    (so it has no executed test and is not measurable): an incomplete run."""
    return run_conformance(
        "run",
        "-n",
        "0",
        "--quiet",
        "--requirements",
        "VER-PATH-V2,SDK-STATUS-304-IF-NONE-MATCH",
        "--report-dir",
        str(report_dir),
        *extra,
        "--",
        "-k",
        "test_documented_v2_paths_serve",
        timeout=180,
    )


def test_an_incomplete_run_exits_3(tmp_path: Path) -> None:
    result = run_cli(tmp_path)
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stdout.splitlines()[-1].startswith(
        "conformance: incomplete: measured 1 of 2 requirements (1 pass, 1 not-measurable) in "
    )
    assert "accepted" not in result.stdout
    data = json.loads((tmp_path / "conformance.json").read_text(encoding="utf-8"))
    assert data["verdict"] == "incomplete"
    assert data["measured"] == {"count": 1, "of": 2}
    assert "✅" not in (tmp_path / "conformance.md").read_text(encoding="utf-8").splitlines()[0]


def test_accept_incomplete_exits_0_and_says_so(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "--accept-incomplete")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[-2].startswith("conformance: incomplete: measured 1 of 2 requirements")
    assert lines[-1] == (
        "conformance: incomplete verdict accepted on purpose (--accept-incomplete): exit 0"
    )
    data = json.loads((tmp_path / "conformance.json").read_text(encoding="utf-8"))
    assert data["verdict"] == "incomplete"  # accepted, not rewritten
