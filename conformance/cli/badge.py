"""``conformance badge``: its arguments, handed to ``conformance.report.badge``."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.report.badge import render
from conformance.report.rerender import load_report, report_file
from conformance.report.writer import write_whole
from conformance.verdict.run_verdict import Level


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "badge",
        help="write a report's verdict as an SVG badge (interface, or --level drop-in)",
        description="Write a shields-style SVG badge from a conformance.json: the verdict and "
        "the count of requirements passed, coloured by the verdict.",
    )
    parser.add_argument("report", metavar="REPORT", help="a conformance.json, or its directory")
    parser.add_argument("--output", required=True, metavar="FILE", help="the SVG to write")
    parser.add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=Level.INTERFACE.value,
        help="which level the badge gives (default: interface)",
    )


def main(options: argparse.Namespace) -> int:
    report = load_report(report_file(options.report))
    output = Path(options.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_whole(output, render(report, Level(options.level)), "utf-8")
    print(output)
    return 0
