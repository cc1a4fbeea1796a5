"""The matrix across implementations: its reports read, DIR/matrix.html and DIR/matrix.md written.

``conformance matrix`` (``conformance.cli.matrix``): exit 0; 2 for a missing or invalid report or
a bad label."""

from __future__ import annotations

from pathlib import Path

from conformance.errors import UsageError
from conformance.report import matrix_html, matrix_markdown
from conformance.report.matrix import Matrix, build
from conformance.report.model import Report
from conformance.report.rerender import load_report, report_file
from conformance.report.writer import write_whole

HTML_NAME = matrix_markdown.HTML_FILE
MARKDOWN_NAME = "matrix.md"


def read(paths: list[str], labels: list[str]) -> Matrix:
    if len(labels) > len(paths):
        raise UsageError(
            f"{len(labels)} --label given for {len(paths)} reports",
            "give at most one --label per report, in the order of the reports",
        )
    reports: list[tuple[str, Report]] = []
    for given in paths:
        path = report_file(given)
        reports.append((str(path), load_report(path)))
    return build(reports, labels)


def write(matrix: Matrix, output: Path) -> list[Path]:
    output.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        (HTML_NAME, matrix_html.render(matrix)),
        (MARKDOWN_NAME, matrix_markdown.render(matrix, HTML_NAME)),
    ):
        path = output / name
        write_whole(path, text, "utf-8")
        written.append(path)
    return written
