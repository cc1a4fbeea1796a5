"""``conformance report``: its arguments, handed to ``conformance.report.rerender``."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.registry import by_name
from conformance.report.rerender import rerender


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``conformance report DIR`` subcommand."""
    parser = commands.add_parser(
        "report",
        help="re-render conformance.md and conformance.html from DIR/conformance.json",
        description="Re-render the Markdown and HTML reports from a report directory's "
        "conformance.json, with no run against any target.",
    )
    parser.add_argument(
        "report_dir", metavar="DIR", nargs="?", default="reports", help="(default: reports)"
    )


def main(options: argparse.Namespace) -> int:
    for path in rerender(Path(options.report_dir), readings=by_name()):
        print(path)
    return 0
