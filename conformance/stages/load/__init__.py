"""The load stage: a simulated fleet of game-server instances on Locust against any target, and
the polling rules judged from what it saw (rate-limit buckets, the shedding hint and its
convergence, write visibility, no 5xx), with its figures and charts.

``STAGE`` declares it to the registry, with the ``conformance load-worker`` command. Nothing here
imports Locust: the fleet runs in Locust's own processes (``engine``), started by the stage's
session fixture (``test_load``).
"""

from __future__ import annotations

from conformance.errors import UsageError
from conformance.stages.declaration import Command, Option, Stage, Values
from conformance.stages.load.charts import html
from conformance.stages.load.engine import DEFAULT_PORT, require_locust
from conformance.stages.load.summary import describe


def _check_options(values: Values) -> None:
    """Locust installed, and at least one worker."""
    require_locust()
    local, remote = values.get("load_workers"), values.get("load_remote_workers")
    local_n = local if isinstance(local, int) else None
    remote_n = remote if isinstance(remote, int) else 0
    if (local_n is not None and local_n < 0) or remote_n < 0 or (local_n == 0 and not remote_n):
        raise UsageError(
            "the load stage needs at least one Locust worker",
            "pass --load-workers N (N >= 1), or --load-remote-workers M with workers joining",
        )


STAGE = Stage(
    name="load",
    help="a simulated fleet on Locust: rate-limit buckets, the shedding hint, write visibility "
    "under load (--load-workers; about a minute)",
    test_package="conformance.stages.load.test_load",
    plugin="conformance.stages.load.plugin",
    in_all=False,
    one_process=True,
    options=(
        Option(
            "--load-workers",
            "local Locust worker processes; one per core when not given",
            type=int,
            metavar="N",
        ),
        Option(
            "--load-remote-workers",
            "also wait for M workers joining with conformance load-worker (the master then "
            "listens on all interfaces unless --load-bind)",
            type=int,
            default=0,
            metavar="M",
        ),
        Option(
            "--load-port",
            "the Locust master's port",
            type=int,
            default=DEFAULT_PORT,
            metavar="PORT",
        ),
        Option("--load-bind", "the Locust master's address", metavar="HOST"),
        Option(
            "--load-progress",
            "where the fleet's progress lines go: tty, - (stderr) or a file",
            default="tty",
            run_flag="",
        ),
    ),
    check_options=_check_options,
    commands=(Command("load-worker", "conformance.stages.load.command"),),
    describe=describe,
    html=html,
)
