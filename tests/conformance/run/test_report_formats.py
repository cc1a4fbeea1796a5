"""``conformance run --formats``: only the reports asked for are written (JSON always), and an
unknown format is a usage error before anything runs (real runs on the embedded server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.report.writer import RUN_FORMATS, run_formats
from tests.support.conformance_cli import run_conformance

ONE = "SDK-STATUS-ETAG-EQUALS-HASH"


def test_formats_are_read_in_order_with_json_always() -> None:
    assert run_formats("md, HTML") == ("json", "md", "html")
    assert run_formats("allure,json") == ("json", "allure")
    assert run_formats("") == ("json",)
    assert RUN_FORMATS == ("json", "md", "html", "junit", "allure")
    with pytest.raises(ValueError, match=r"unknown report format.*xml.*known: json"):
        run_formats("json,xml")


def test_a_run_writes_only_the_reports_asked_for(tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = run_conformance(
        "run", "--requirements", ONE, "--formats", "md", "--report-dir", str(report),
        "--quiet", timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in report.iterdir()) == ["conformance.json", "conformance.md"]


def test_every_report_by_default(tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = run_conformance(
        "run", "--requirements", ONE, "--report-dir", str(report), "--quiet",
        timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    names = {p.name for p in report.iterdir()}
    wanted = {"conformance.json", "conformance.md", "conformance.html", "junit.xml"}
    assert names == wanted | {"allure-results"}


def test_an_unknown_format_is_a_usage_error_and_nothing_runs(tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = run_conformance(
        "run", "--formats", "json,pdf", "--report-dir", str(report), timeout=60, cwd=tmp_path
    )
    assert done.returncode == 2
    assert "unknown report format(s) pdf; known: json, md, html, junit, allure" in done.stderr
    assert not report.exists()
