"""conformance report DIR: Markdown and HTML re-rendered from conformance.json alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.errors import UsageError
from conformance.registry import by_name
from conformance.report.html_report import render as render_html
from conformance.report.markdown_report import render as render_markdown
from conformance.report.rerender import load_report, rerender
from conformance.report.writer import write_reports
from tests.support import sample_reports as samples


def test_rerender_reproduces_md_and_html(tmp_path: Path) -> None:
    report = samples.not_conformant()
    write_reports(report, tmp_path, formats=["json"])
    written = rerender(tmp_path)
    assert sorted(p.name for p in written) == ["conformance.html", "conformance.md"]
    assert (tmp_path / "conformance.md").read_text(encoding="utf-8") == render_markdown(report)
    assert (tmp_path / "conformance.html").read_text(encoding="utf-8") == render_html(report)


def test_a_rerender_reads_each_stage_as_the_run_did(tmp_path: Path) -> None:
    """conformance.json holds no stage's own lines or HTML: the re-render reads them from the
    details again, with the stages' readings its caller hands over, as the run's writer did."""
    first, again, plain = tmp_path / "first", tmp_path / "again", tmp_path / "plain"
    write_reports(samples.conformant(), first, readings=by_name())
    write_reports(samples.conformant(), plain, formats=["json"])
    json_text = (first / "conformance.json").read_text(encoding="utf-8")
    assert json_text == (plain / "conformance.json").read_text(encoding="utf-8")
    again.mkdir()
    shutil.copy(first / "conformance.json", again)
    rerender(again, readings=by_name())
    for name in ("conformance.md", "conformance.html"):
        assert (again / name).read_text(encoding="utf-8") == (first / name).read_text("utf-8")
    assert "tier pr, seed 12345: 1900 cases" in (again / "conformance.md").read_text("utf-8")


def test_missing_report_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no report at"):
        rerender(tmp_path)


def test_invalid_report_is_a_usage_error(tmp_path: Path) -> None:
    write_reports(samples.conformant(), tmp_path, formats=["json"])
    path = tmp_path / "conformance.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["requirements"][0]["outcome"] = "sort-of"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UsageError, match=r"at /requirements/0/outcome"):
        load_report(path)


def test_unreadable_json_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "conformance.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError, match="cannot read"):
        rerender(tmp_path)
