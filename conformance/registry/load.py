"""The load stage's declaration: a simulated fleet of game-server instances on Locust against any
target, and the polling rules judged from what it saw (rate-limit buckets, the shedding hint and
its convergence, write visibility, no 5xx), with its figures and charts.

``STAGE`` declares it to the registry, with the ``conformance load-worker`` command
(``conformance.cli.load_worker``); its machinery is ``conformance.stages.load``. Nothing here
imports Locust: the fleet runs in Locust's own processes (``engine``), started by the stage's
session fixture (``test_load``).
"""

from __future__ import annotations

from conformance.registry.declaration import Command, Option, Stage

DEFAULT_PORT = 5557  # Locust's own default master port

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
            "the Locust master's port (default: a free port for a fleet of local workers, so "
            f"two runs on one machine never collide; {DEFAULT_PORT} when remote workers join)",
            type=int,
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
    check_options="conformance.stages.load.engine:check_options",
    commands=(Command("load-worker", "conformance.cli.load_worker"),),
    describe="conformance.stages.load.summary:describe",
    html="conformance.stages.load.charts:html",
)
