"""The ``conformance`` command: its parser and its dispatch, one module per subcommand.

Each subcommand is a module with ``add_parser(subcommands)`` (its arguments) and ``main(options)``
(a call into the room that does the work, returning the exit status): ``run``
(``conformance.cli.run``), the commands of no stage (``GENERAL_COMMANDS``) and each stage's own
(``Stage.commands``, declared by the stage in the registry): every one a module of this package.
Exit statuses: ``conformance.run.launch``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from conformance.errors import UsageError
from conformance.registry import commands
from conformance.run import launch

RUN_COMMAND = "conformance.cli.run"  # ``conformance run``, the first subcommand
# Subcommands of no stage: name -> module with add_parser(subparsers) and main(options) -> exit
# status. A stage's own commands are declared by the stage (``Stage.commands``), kept here too.
GENERAL_COMMANDS: dict[str, str] = {
    "selftest": "conformance.cli.selftest",
    "flaky": "conformance.cli.flaky",
    "report": "conformance.cli.report",
    "diff": "conformance.cli.diff",
    "matrix": "conformance.cli.matrix",
    "badge": "conformance.cli.badge",
    "contract": "conformance.cli.contract",
    "profile": "conformance.cli.profile",
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance",
        description="Certify an implementation of the Remote Configuration and Experiments "
        "Service interface.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND")
    importlib.import_module(RUN_COMMAND).add_parser(subcommands)
    for module in command_modules().values():
        importlib.import_module(module).add_parser(subcommands)
    return parser


def command_modules() -> dict[str, str]:
    """Every subcommand but ``run``: name -> module."""
    return {**GENERAL_COMMANDS, **{command.name: command.module for command in commands()}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    options = parser.parse_args(argv)
    modules = {"run": RUN_COMMAND, **command_modules()}
    if options.command not in modules:
        parser.print_help()
        return launch.EXIT_USAGE
    try:
        return int(importlib.import_module(modules[options.command]).main(options))
    except UsageError as error:
        print(f"conformance: usage error: {error}", file=sys.stderr)
        return launch.EXIT_USAGE
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return launch.EXIT_USAGE
