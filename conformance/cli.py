"""The ``conformance`` command: its parser and its dispatch, nothing else.

``run`` (``conformance.run.launch``) and its options, each stage's options and commands (the
stage registry, ``conformance.stages``) and the commands of no stage (``GENERAL_COMMANDS``).
Exit statuses: ``conformance.run.launch``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from conformance.errors import UsageError
from conformance.report.writer import RUN_FORMATS, run_formats
from conformance.run import launch
from conformance.session.deadline import seconds_option
from conformance.stages import REGISTRY, by_name, commands
from conformance.verdict.run_verdict import Level

# Subcommands of no stage: name -> module with add_parser(subparsers) and main(options) -> exit
# status. A stage's own commands are declared by the stage (``Stage.commands``).
GENERAL_COMMANDS: dict[str, str] = {
    "selftest": "conformance.selftest.command",
    "flaky": "conformance.selftest.flakiness",
    "report": "conformance.report.rerender",
    "diff": "conformance.report.diff",
    "matrix": "conformance.report.matrix_command",
    "badge": "conformance.report.badge",
    "contract": "conformance.contract.command",
    "profile": "conformance.target.draft",
}
EPILOG = """\
examples:
  conformance run
      certify the embedded reference server (free loopback port, throwaway database)
  conformance run --base-url http://127.0.0.1:8000 --profile target.yaml
      certify your own server; the profile says how it fills the spec's gaps
  conformance run --requirements SDK-STATUS-304-IF-NONE-MATCH,SDK-STATUS-ETAG-EQUALS-HASH
      check only these requirements
  conformance run --stage all --report-dir out/
      scenarios and fuzzing; reports go to out/
  conformance run -- -k status -x
      pass anything after -- on to pytest
  conformance run --accept-incomplete
      exit 0 even if some requirement could not be measured (the verdict still says incomplete)
  conformance matrix reports/ other/reports/ --output matrix/
      set reports side by side (matrix.html, matrix.md); an id a report lacks is absent
  conformance badge reports/ --output badge.svg
      the verdict as an SVG badge (--level drop-in for the second level)
  conformance run --level drop-in
      also exit 1 when the target departs from a production convention its profile leaves at
      the default (a drop-in difference; never an interface failure)

levels: every run judges the interface (the specification's words and what the profile writes
explicitly) and drop-in compatibility (also the production conventions: every key's default the
profile leaves out; `conventions: production` in the profile declares them all). The exit status
follows --level (default interface).

exit status: 0 conformant (also "conformant with declared exceptions": unsupported
capabilities, optional profile inputs not configured, baseline known failures, spec doubts;
--strict makes those exit 1),
1 not conformant, 2 usage error, 3 incomplete (no failure, but a requirement in scope was not
measured for a reason the profile does not declare; 0 with --accept-incomplete).

stopping: SIGINT (Ctrl-C) or SIGTERM (a CI cancel, timeout, docker stop) ends a run of any stage
within seconds; every report is written with what was measured until then (verdict incomplete,
the rest noted as stopped) and the exit status is 3, or 1 if a failure was already measured,
even with --accept-incomplete. A signal while the reports are being written is ignored; the next
one ends the process at once.
"""


def _formats(text: str) -> tuple[str, ...]:
    """``--formats``: the run's report formats (``report.writer.run_formats``)."""
    try:
        return run_formats(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance",
        description="Certify an implementation of the Remote Configuration and Experiments "
        "Service interface.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = subcommands.add_parser(
        "run",
        help="certify a target (default: the embedded reference server)",
        description="Run the conformance stages against a target and write reports.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--base-url", metavar="URL", help="the target's base URL (default: embedded server)"
    )
    run.add_argument(
        "--profile", metavar="FILE", help="the target profile (YAML); required with --base-url"
    )
    run.add_argument(
        "--report-dir", metavar="DIR", default="reports", help="where reports go (default: reports)"
    )
    run.add_argument(
        "--formats",
        metavar="FORMAT,...",
        type=_formats,
        default=RUN_FORMATS,
        help=f"the reports to write: {', '.join(RUN_FORMATS)} (default: all; json is always "
        "written: the record the others render and `conformance report` reads back)",
    )
    run.add_argument(
        "--requirements",
        metavar="ID,...",
        help="check only these requirement ids (comma-separated)",
    )
    run.add_argument(
        "--stage",
        choices=[*by_name(), "all"],
        default=REGISTRY[0].name,
        help=f"which stage to run (default: {REGISTRY[0].name}): "
        + "; ".join(f"{s.name}: {s.help}" for s in REGISTRY)
        + "; all: "
        + ", ".join(s.name for s in REGISTRY if s.in_all),
    )
    run.add_argument(
        "-n",
        "--workers",
        metavar="N",
        default="auto",
        help="parallel pytest-xdist workers; 'auto' is 2 on loopback and more the farther the "
        "target (one per 10 ms of round trip, at most 8); 0 runs in one process; the load and "
        "client stages always run in one (default: auto)",
    )
    run.add_argument(
        "--quiet", action="store_true", help="no per-test progress, only the summary lines"
    )
    run.add_argument(
        "--run-deadline",
        metavar="SECONDS",
        type=seconds_option,
        help="after this many seconds no further test starts (each fails with a note); "
        "the reports are still written (default: 1800)",
    )
    run.add_argument(
        "--accept-incomplete",
        action="store_true",
        help="exit 0 for an incomplete verdict (requirements not measured); the reports still "
        "say incomplete",
    )
    run.add_argument(
        "--level",
        choices=[level.value for level in Level],
        default=Level.INTERFACE.value,
        help="the level the exit status follows: interface (the specification and what the "
        "profile declares) or drop-in (also every production convention the profile leaves at "
        "its default: a difference exits 1); the reports show both (default: interface)",
    )
    run.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 unless plainly conformant: a verdict conformant only with declared "
        "exceptions (a stated feature declared unsupported, an input not configured, a baseline "
        "entry, a spec doubt) fails the gate",
    )
    run.add_argument("pytest_args", nargs="*", metavar="-- PYTEST-ARGS", help=argparse.SUPPRESS)
    for stage in REGISTRY:
        stage.add_run_options(run)
    for module in command_modules().values():
        importlib.import_module(module).add_parser(subcommands)
    return parser


def command_modules() -> dict[str, str]:
    """Every subcommand but ``run``: name -> module."""
    return {**GENERAL_COMMANDS, **{command.name: command.module for command in commands()}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    options = parser.parse_args(argv)
    modules = command_modules()
    if options.command != "run" and options.command not in modules:
        parser.print_help()
        return launch.EXIT_USAGE
    try:
        if options.command in modules:
            return int(importlib.import_module(modules[options.command]).main(options))
        return launch.run(options)
    except UsageError as error:
        print(f"conformance: usage error: {error}", file=sys.stderr)
        return launch.EXIT_USAGE
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return launch.EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
