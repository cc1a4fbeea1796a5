"""``conformance client``: certify an SDK client. The kit plays a scripted server, runs the client
(``--command``; default the reference client) and judges what it sent: ``conformance run --stage
client`` under the client's own option names, with the same reports, exit statuses and stop
signals (``conformance.run.launch``). ``run`` holds every stage's options, so there they carry
the stage's name (``--client-command``, ``--client-time-scale``); this command holds the client's
alone and takes both spellings, so a command line moves between the two unchanged. The command
and the profile are checked before pytest starts: a usage error says so.
"""

from __future__ import annotations

import argparse
import shutil

from conformance.errors import UsageError
from conformance.registry.client import STAGE
from conformance.run import launch
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


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        "--client-command",  # conformance run's spelling, so a line copied from there works
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
        "--client-time-scale",
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


def main(options: argparse.Namespace) -> int:
    """``conformance client``: the client stage's run, announced by the client it certifies."""
    settings = settings_from(options.client_command, options.profile, options.client_time_scale)
    program = settings.command[0]
    if shutil.which(program) is None:
        raise UsageError(
            f"the client command {program!r} is not an executable (found on PATH or as a path)",
            "pass --command with an executable; it is run without a shell",
        )
    run_options = argparse.Namespace(
        **vars(options),
        stage=STAGE.name,
        base_url=None,
        workers="0",
        run_deadline=None,
        pytest_args=[],
    )
    return launch.run(run_options, announce=f"the client {settings.summary()['command']}")
