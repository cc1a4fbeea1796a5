"""``conformance flaky``: its arguments, handed to ``conformance.selftest.flakiness``."""

from __future__ import annotations

import argparse

from conformance.registry import REGISTRY
from conformance.selftest.flakiness import flaky


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "flaky",
        help="run the suite N times against the reference server and report any difference",
        description="Certify the embedded reference server N times and compare, per "
        "requirement, the outcomes of the runs.",
    )
    parser.add_argument("--runs", type=int, default=20, help="how many runs (default: 20)")
    parser.add_argument(
        "--stage",
        default=REGISTRY[0].name,
        help=f"the stage each run uses (default: {REGISTRY[0].name})",
    )
    parser.add_argument(
        "-n", "--workers", default="auto", metavar="N", help="workers of each run (default: auto)"
    )
    parser.add_argument("--keep", metavar="DIR", help="keep each run's reports under DIR")


def main(options: argparse.Namespace) -> int:
    return flaky(options.runs, options.stage, str(options.workers), options.keep)
