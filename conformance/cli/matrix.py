"""``conformance matrix``: its arguments, handed to ``conformance.report.matrix_files``."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.report.matrix_files import read, write


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
