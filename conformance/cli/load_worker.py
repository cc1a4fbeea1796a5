"""``conformance load-worker --master HOST:PORT``: one Locust worker of the fleet on this machine,
joining a master started by ``conformance run --stage load --load-remote-workers N``."""

from __future__ import annotations

import argparse
import subprocess

from conformance.stages.load.engine import require_locust, worker_command


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "load-worker",
        help="join a load stage's Locust master from this machine (docs/load.md)",
        description="Run one Locust worker of the load stage's fleet; the plan (target, "
        "credentials, fleet) comes from the master.",
    )
    parser.add_argument("--master", required=True, metavar="HOST:PORT", help="the master")
    parser.add_argument(
        "--processes", type=int, default=1, help="worker processes here (default: 1)"
    )


def main(options: argparse.Namespace) -> int:
    require_locust()
    command = worker_command(options.master)
    processes = [subprocess.Popen(command) for _ in range(max(1, options.processes))]
    try:
        return max(process.wait() for process in processes)
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
