"""conformance report DIR: Markdown and HTML re-rendered from conformance.json alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.errors import UsageError
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
