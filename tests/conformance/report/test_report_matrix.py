"""conformance matrix: rows by section with their level, columns headed by both verdicts, absent
never a pass, drop-in differences marked, labels; the command's files and usage errors."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.report import matrix_markdown
from conformance.report.json_report import dumps
from conformance.report.matrix import ABSENT, build, default_label
from conformance.report.matrix_html import render
from conformance.report.model import Report
from conformance.verdict.outcome import Outcome
from conformance.verdict.run_verdict import Verdict
from tests.conformance.report.test_report_html import external_references
from tests.support import sample_reports as samples


def _without(report: Report, requirement_id: str) -> Report:
    """The report as an older catalogue would have made it: one id missing."""
    return replace(
        report, requirements=tuple(r for r in report.requirements if r.id != requirement_id)
    )


def test_a_missing_id_is_absent_never_a_pass() -> None:
    old = _without(samples.conformant(), "SDK-STATUS-304-IF-NONE-MATCH")
    matrix = build([("new", samples.not_conformant()), ("old", old)], ["new", "old"])
    row = next(r for r in matrix.rows if r.id == "SDK-STATUS-304-IF-NONE-MATCH")
    assert [cell.name for cell in row.cells] == ["fail", ABSENT]
    assert row.cells[1].outcome is None
    markdown = matrix_markdown.render(matrix)
    line = next(x for x in markdown.splitlines() if x.startswith("| `SDK-STATUS-304-IF-NONE"))
    assert line.endswith(f"| {ABSENT} |") and "pass" not in line


def test_an_id_only_an_older_report_holds_is_a_row_absent_elsewhere() -> None:
    renamed = samples.conformant()
    renamed = replace(
        renamed,
        requirements=tuple(
            replace(r, id="OLD-ID") if r.id == "SDK-STATUS-ETAG" else r
            for r in renamed.requirements
        ),
    )
    matrix = build([("now", samples.conformant()), ("then", renamed)])
    rows = {r.id: r for r in matrix.rows}
    assert [c.name for c in rows["OLD-ID"].cells] == [ABSENT, "pass"]
    assert [c.name for c in rows["SDK-STATUS-ETAG"].cells] == ["pass", ABSENT]
    assert rows["OLD-ID"].keys is None  # not in this suite's catalogue: said, not guessed


def test_rows_by_section_with_the_catalogue_keys_as_their_level() -> None:
    matrix = build([("a", samples.conformant())])
    sections = [r.section for r in matrix.rows]
    assert sections == sorted(sections, key=lambda s: [int(p) for p in s.split(".")])
    rows = {r.id: r for r in matrix.rows}
    assert [level.value for level in rows["SDK-STATUS-304-IF-NONE-MATCH"].levels] == ["interface"]
    assert rows["EXP-LIST"].keys  # the catalogue's rests_on.keys
    assert [level.value for level in rows["EXP-LIST"].levels] == ["interface", "drop-in"]
    html = render(matrix)
    assert 'data-levels="interface drop-in"' in html
    for key in rows["EXP-LIST"].keys or ():
        assert key in html


def test_a_drop_in_difference_keeps_the_interface_outcome_and_is_marked() -> None:
    matrix = build([("ref", samples.conformant()), ("other", samples.drop_in_differs())])
    row = next(r for r in matrix.rows if r.id == "EXP-LIST")
    assert [c.name for c in row.cells] == ["pass", "pass"]
    assert not row.cells[0].differences and row.cells[1].differences
    markdown = matrix_markdown.render(matrix)
    line = next(x for x in markdown.splitlines() if x.startswith("| `EXP-LIST`"))
    assert "| ✅ pass | [✅ pass ◆](matrix.html#cell-2-EXP-LIST) |" in line
    html = render(matrix)
    assert 'data-outcome="pass" data-differs="1"' in html
    assert "errors.code_field" in html  # the key that would declare the choice, on demand


def test_column_heads_give_both_levels_suite_hashes_and_date() -> None:
    other = replace(
        samples.drop_in_differs(),
        suite_version="0.2.0",
        catalogue_sha256="c" * 64,
        started_at="2026-03-04T05:06:07Z",
    )
    matrix = build([("a.json", samples.not_conformant()), ("b.json", other)], ["ref", "other"])
    assert [c.interface for c in matrix.columns] == [Verdict.NOT_CONFORMANT, Verdict.CONFORMANT]
    assert [c.drop_in for c in matrix.columns] == [Verdict.NOT_CONFORMANT] * 2
    markdown = matrix_markdown.render(matrix)
    assert "| Interface | ❌ not-conformant | ✅ conformant |" in markdown
    assert "| Drop-in | ❌ not-conformant | ❌ not-conformant |" in markdown
    assert "| Suite | 0.1.0 | 0.2.0 |" in markdown
    assert f"| Catalogue sha256 | `{'b' * 12}` | `{'c' * 12}` |" in markdown
    assert "| Date | 2026-01-02T03:04:05Z | 2026-03-04T05:06:07Z |" in markdown
    assert "2 catalogue versions" in markdown
    html = render(matrix)
    assert 'data-level="drop-in" data-verdict="not-conformant"' in html
    assert 'data-level="interface" data-verdict="conformant"' in html


def test_labels_default_to_the_fingerprint_and_repeat_numbered() -> None:
    report = samples.conformant()
    matrix = build([("a", report), ("b", report), ("c", report)], ["given"])
    expected = default_label(report)
    assert report.target_fingerprint in expected and "scenarios" in expected
    assert [c.label for c in matrix.columns] == ["given", expected, f"{expected} (2)"]


def test_everything_from_a_report_is_escaped_and_offline() -> None:
    hostile = replace(samples.not_conformant(), target_fingerprint="<script>alert(1)</script>")
    html = render(build([("x", hostile)]))
    assert "<script>alert(1)</script>" not in html  # the evidence body holds one too
    assert external_references(html) == []


def _write(tmp_path: Path, name: str, report: Report) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "conformance.json").write_text(dumps(report), encoding="utf-8")
    return folder


def test_the_command_writes_both_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = _write(tmp_path, "ref", samples.not_conformant())
    other = _write(tmp_path, "other", samples.drop_in_differs())
    out = tmp_path / "out"
    status = main(
        ["matrix", str(ref), str(other / "conformance.json"), "--output", str(out),
         "--label", "reference"]
    )  # fmt: skip
    assert status == 0
    assert capsys.readouterr().out.split() == [str(out / "matrix.html"), str(out / "matrix.md")]
    markdown = (out / "matrix.md").read_text(encoding="utf-8")
    assert "| | **reference** | **sha256:0123456789abcdef · scenarios, fuzz** |" in markdown
    assert (out / "matrix.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_the_command_refuses_a_missing_report_and_too_many_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _write(tmp_path, "ref", samples.conformant())
    assert main(["matrix", str(tmp_path / "nowhere.json"), "--output", str(tmp_path)]) == 2
    assert "no report at" in capsys.readouterr().err
    labels = ["--label", "a", "--label", "b"]
    assert main(["matrix", str(ref), "--output", str(tmp_path / "o"), *labels]) == 2
    assert "2 --label given for 1 reports" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema_version": "1.4"}), encoding="utf-8")
    assert main(["matrix", str(broken), "--output", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()


def test_outcomes_counted_in_the_filters() -> None:
    matrix = build(
        [("a", samples.not_conformant()), ("b", _without(samples.conformant(), "EXP-LIST"))]
    )
    html = render(matrix)
    fails = sum(1 for r in matrix.rows for c in r.cells if c.outcome is Outcome.FAIL)
    assert f'data-filter="fail"> fail ({fails})' in html
    assert f'data-filter="{ABSENT}"> {ABSENT} (1)' in html
