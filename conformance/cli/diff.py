"""``conformance diff``: its arguments, handed to ``conformance.report.diff``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance.report.diff import diff_reports, format_diff
from conformance.report.rerender import load_report
from conformance.verdict.run_verdict import Level


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``conformance diff OLD.json NEW.json`` subcommand."""
    parser = commands.add_parser(
        "diff",
        help="compare two conformance.json files; exit 1 if anything newly fails or stops passing",
        description="Print what newly fails, stops passing, newly passes and changes outcome "
        "between two conformance reports (for CI on pull requests). Exit 1 if anything newly "
        "fails or stops passing (pass -> not-measurable included), 2 for a usage error.",
    )
    parser.add_argument("old", metavar="OLD.json")
    parser.add_argument("new", metavar="NEW.json")
    parser.add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=Level.INTERFACE.value,
        help="drop-in: a production convention that newly differs exits 1 too (default: interface)",
    )


def main(options: argparse.Namespace) -> int:
    diff = diff_reports(load_report(Path(options.old)), load_report(Path(options.new)))
    sys.stdout.write(format_diff(diff))
    return diff.exit_code_at(Level(options.level))
