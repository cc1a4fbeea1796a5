"""write_reports: the requested files, JSON first, a created directory, unknown formats refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.report.json_report import loads
from conformance.report.writer import write_reports
from tests.support import sample_reports as samples


def test_writes_every_default_format(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "reports"
    written = write_reports(samples.not_conformant(), target)
    assert [p.name for p in written] == [
        "conformance.json",
        "conformance.md",
        "conformance.html",
        "junit.xml",
    ]
    assert all(p.parent == target and p.stat().st_size > 0 for p in written)
    assert loads(written[0].read_text(encoding="utf-8")) == samples.not_conformant()


def test_json_is_written_first_whatever_the_order(tmp_path: Path) -> None:
    written = write_reports(samples.conformant(), tmp_path, formats=["junit", "json", "junit"])
    assert [p.name for p in written] == ["conformance.json", "junit.xml"]


def test_unknown_format_is_refused_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown report format"):
        write_reports(samples.conformant(), tmp_path, formats=["json", "pdf"])
    assert list(tmp_path.iterdir()) == []
