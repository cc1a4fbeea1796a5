"""``conformance matrix REPORT... --output DIR``: the matrix across implementations, written as
DIR/matrix.html and DIR/matrix.md (exit 0; 2 for a missing or invalid report or a bad label)."""

from __future__ import annotations

import argparse
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


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "matrix",
        help="set reports side by side: requirements as rows, implementations as columns "
        "(matrix.html and matrix.md)",
        description="Read any number of conformance.json files (implementations, versions, "
        "stages) and write a matrix of their results: one self-contained HTML page and a "
        "Markdown table. An id a report does not hold is shown as absent, never as a pass.",
    )
    parser.add_argument(
        "reports", nargs="+", metavar="REPORT", help="a conformance.json, or a directory with one"
    )
    parser.add_argument("--output", required=True, metavar="DIR", help="where the files go")
    parser.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="NAME",
        help="a column's label, once per report in order (default: the target fingerprint and "
        "the stages)",
    )


def main(options: argparse.Namespace) -> int:
    matrix = read(list(options.reports), list(options.label))
    for path in write(matrix, Path(options.output)):
        print(path)
    return 0
