"""``conformance run``: its arguments and each stage's options, handed to ``run.launch``."""

from __future__ import annotations

import argparse

from conformance.cli import EPILOG
from conformance.registry import REGISTRY, by_name
from conformance.report.writer import RUN_FORMATS, run_formats
from conformance.run import launch
from conformance.session.deadline import seconds_option
from conformance.verdict.run_verdict import Level


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "run",
        help="certify a target (default: the embedded reference server)",
        description="Run the conformance stages against a target and write reports.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--base-url", metavar="URL", help="the target's base URL (default: embedded server)"
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="the target profile (YAML); required with --base-url"
    )
    parser.add_argument(
        "--report-dir", metavar="DIR", default="reports", help="where reports go (default: reports)"
    )
    parser.add_argument(
        "--formats",
        metavar="FORMAT,...",
        type=_formats,
        default=RUN_FORMATS,
        help=f"the reports to write: {', '.join(RUN_FORMATS)} (default: all; json is always "
        "written: the record the others render and `conformance report` reads back)",
    )
    parser.add_argument(
        "--requirements",
        metavar="ID,...",
        help="check only these requirement ids (comma-separated)",
    )
    parser.add_argument(
        "--stage",
        choices=[*by_name(), "all"],
        default=REGISTRY[0].name,
        help=f"which stage to run (default: {REGISTRY[0].name}): "
        + "; ".join(f"{s.name}: {s.help}" for s in REGISTRY)
        + "; all: "
        + ", ".join(s.name for s in REGISTRY if s.in_all),
    )
    parser.add_argument(
        "-n",
        "--workers",
        metavar="N",
        default="auto",
        help="parallel pytest-xdist workers; 'auto' is 2 on loopback and more the farther the "
        "target (one per 10 ms of round trip, at most 8); 0 runs in one process; the load and "
        "client stages always run in one (default: auto)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no per-test progress, only the summary lines"
    )
    parser.add_argument(
        "--run-deadline",
        metavar="SECONDS",
        type=seconds_option,
        help="after this many seconds no further test starts (each fails with a note); "
        "the reports are still written (default: 1800)",
    )
    parser.add_argument(
        "--accept-incomplete",
        action="store_true",
        help="exit 0 for an incomplete verdict (requirements not measured); the reports still "
        "say incomplete",
    )
    parser.add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=Level.INTERFACE.value,
        help="the level the exit status follows: interface (the specification and what the "
        "profile declares) or drop-in (also every production convention the profile leaves at "
        "its default: a difference exits 1); the reports show both (default: interface)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 unless plainly conformant: a verdict conformant only with declared "
        "exceptions (a stated feature declared unsupported, an input not configured, a baseline "
        "entry, a spec doubt) fails the gate",
    )
    parser.add_argument("pytest_args", nargs="*", metavar="-- PYTEST-ARGS", help=argparse.SUPPRESS)
    for stage in REGISTRY:
        stage.add_run_options(parser)


def _formats(text: str) -> tuple[str, ...]:
    """``--formats``: the run's report formats (``report.writer.run_formats``)."""
    try:
        return run_formats(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(options: argparse.Namespace) -> int:
    return launch.run(options)
