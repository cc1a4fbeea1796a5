"""``conformance client``: certify an SDK client. The kit plays a scripted server, runs the client
(``--command``; default the reference client) and judges what it sent; reports as ``run`` writes
them, and the same exit status: 0 conformant, 1 not conformant, 2 usage error, 3 incomplete.
SIGINT and SIGTERM stop it as they stop ``conformance run`` (``conformance.run.stop_signals``): the
scenarios that had ended are judged, the reports written, and it exits 3 (1 after a failure).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import (
    EXIT_USAGE,
    PYTEST_INI,
    exit_status,
    stopped_outside_pytest,
    stopped_without_report,
)
from conformance.errors import UsageError
from conformance.report.headline import summary_line
from conformance.run import stop_signals
from conformance.run.collector import ReportCapture
from conformance.stages.client import STAGE
from conformance.stages.client import pytest_args as stage_args
from conformance.stages.client.settings import settings_from

EXAMPLES = """\
examples:
  conformance client
      certify the reference client (python -m refclient)
  conformance client --command "node sdk-harness.js" --profile my-client.yaml
      certify your SDK through its harness wrapper (docs/client-stage.md)
  conformance client --requirements POLL-CLIENT-HONOUR-HINT,POLL-CLIENT-HINT-JITTER
      run only the scenarios of these requirements

exit status: 0 conformant, 1 not conformant, 2 usage error (the command cannot be run, a bad
profile), 3 incomplete (0 with --accept-incomplete).

stopping: SIGINT (Ctrl-C) or SIGTERM ends the run within seconds; the scenarios that had ended
are judged, the others are not measurable, every report is written, and the exit status is 3
(1 if a failure was already measured), even with --accept-incomplete.
"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "client",
        help="certify an SDK client: the kit plays the server (default: the reference client)",
        description="Run the client stage: start a scripted server, run the client under test "
        "against it, and judge what the client sent (docs/client-stage.md).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--command",
        dest="client_command",
        metavar="COMMAND",
        default=None,
        help="how to start your client, split like a shell would and run without one; it is "
        "configured by the RCES_* variables (default: <this python> -m refclient)",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="a profile whose client: (and headers:) section describes the client; "
        "credentials are not needed (default: the profile defaults)",
    )
    parser.add_argument(
        "--time-scale",
        dest="client_time_scale",
        metavar="SCALE",
        type=float,
        default=None,
        help="multiplies every time of the stage (default: client.time_scale, 0.02)",
    )
    parser.add_argument(
        "--report-dir", metavar="DIR", default="reports", help="where reports go (default: reports)"
    )
    parser.add_argument("--requirements", metavar="ID,...", help="check only these requirement ids")
    parser.add_argument(
        "--quiet", action="store_true", help="no per-test progress, only the summary lines"
    )
    parser.add_argument(
        "--accept-incomplete", action="store_true", help="exit 0 for an incomplete verdict"
    )


def pytest_args(options: argparse.Namespace, ini: Path) -> list[str]:
    """The pytest arguments of one client-stage run (plugin autoloading off)."""
    root = Path(__file__).resolve().parents[3]
    args = ["-p", "conformance.run.plugin", "-p", "conformance.run.stop_signals"]
    args += ["-c", str(ini), "--rootdir", str(root)]
    args += stage_args(options)
    if getattr(options, "profile", None):
        args += ["--client-profile", str(options.profile)]
    args += ["--pyargs", STAGE.test_package, "--report-dir", str(options.report_dir)]
    if options.requirements:
        args += ["--requirements", options.requirements]
    args += ["-qq", "--no-header", "-p", "no:warnings"] if options.quiet else ["-q", "-rfE"]
    return args


def main(options: argparse.Namespace) -> int:
    """``conformance client``; SIGINT and SIGTERM stop it with its reports."""
    started = time.monotonic()
    with stop_signals.handling():
        try:
            return _main(options, started)
        except KeyboardInterrupt:
            return stopped_outside_pytest(started)


def _main(options: argparse.Namespace, started: float) -> int:
    # The command and the profile are checked before pytest starts: a usage error says so.
    settings = settings_from(options.client_command, options.profile, options.client_time_scale)
    program = settings.command[0]
    if shutil.which(program) is None:
        raise UsageError(
            f"the client command {program!r} is not an executable (found on PATH or as a path)",
            "pass --command with an executable; it is run without a shell",
        )
    if not options.quiet:
        print(f"conformance: certifying the client {settings.summary()['command']}", flush=True)
    capture = ReportCapture()
    saved = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with tempfile.TemporaryDirectory(prefix="conformance-client-") as tmp:
            ini = Path(tmp) / "pytest.ini"
            ini.write_text(PYTEST_INI, encoding="utf-8")
            code = pytest.main(pytest_args(options, ini), plugins=[capture])
    finally:
        if saved is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = saved
    report = capture.report
    stop = stop_signals.stopped()
    if report is None:
        if stop is not None:
            return stopped_without_report(stop.note(started))
        if code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
            return EXIT_USAGE
        raise UsageError(
            f"no client scenario ran (pytest exit status {int(code)})",
            "check --requirements: it must name client requirements",
        )
    where = str(capture.written[0].parent) if capture.written else options.report_dir
    print(summary_line(report, time.monotonic() - started, where), flush=True)
    if stop is not None:
        print(f"conformance: {stop.note(started)}: the reports hold what was measured", flush=True)
    return exit_status(
        report.verdict, accept_incomplete=options.accept_incomplete, stopped=stop is not None
    )
