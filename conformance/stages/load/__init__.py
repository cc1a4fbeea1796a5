"""The load stage: a simulated fleet of game-server instances on Locust against any target, and
the polling rules judged from what it saw (rate-limit buckets, the shedding hint and its
convergence, write visibility, no 5xx), with its figures and charts.

``STAGE`` declares it to the registry. Nothing here imports Locust: the fleet runs in Locust's
own processes (``engine``), started by the stage's session fixture (``test_load``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from conformance.catalogue.requirements import load_catalogue
from conformance.errors import UsageError
from conformance.stages.declaration import Stage
from conformance.stages.load.charts import html
from conformance.stages.load.summary import describe

PLUGINS = (
    "xdist.plugin",
    "pytest_base_url.plugin",
    "allure_pytest.plugin",
    "conformance.run.plugin",
    "conformance.stages.load.plugin",
)
# The spec's rules a load run answers for (each test of ``test_load`` names its own); the
# declared objectives are the catalogue's (``stage: load``).
REQUIREMENTS = frozenset(
    {
        "ERR-NO-SERVER-ERROR",
        "ERR-STATUS-BODY-JSON",
        "ERR-BODY-SHAPE",
        "LIMIT-RATE-429-RETRY-AFTER",
        "LIMIT-RATE-ENFORCED",
        "LIMIT-RATE-WITHIN-BUDGET",
        "LIMIT-RATE-PER-INSTANCE",
        "LIMIT-RATE-SHARED-WITHOUT-ID",
        "POLL-HINT-UNDER-LOAD",
        "POLL-HINT-ABSENT-NORMALLY",
        "POLL-HINT-GONE-AFTER-LOAD",
        "POLL-HINT-VALUES-USABLE",
        "SDK-STATUS-HASH-MOVES-ON-WRITE",
        "SDK-STATUS-CONFIG-HASH-MOVES",
    }
)


def requirement_ids() -> frozenset[str]:
    """The rules above and those the catalogue names the load stage the judge of."""

    return REQUIREMENTS | {r.id for r in load_catalogue() if r.stage == "load"}


def _add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--load-workers",
        type=int,
        metavar="N",
        default=None,
        help="local Locust worker processes (default: one per core)",
    )
    group.add_argument(
        "--load-remote-workers",
        type=int,
        metavar="M",
        default=0,
        help="also wait for M workers joining with conformance load-worker (the master then "
        "listens on all interfaces unless --load-bind)",
    )
    group.add_argument(
        "--load-port", type=int, metavar="PORT", default=5557, help="the master's port (5557)"
    )
    group.add_argument("--load-bind", metavar="HOST", default=None, help="the master's address")


def _pytest_args(options: argparse.Namespace) -> list[str]:
    local, remote = (
        getattr(options, "load_workers", None),
        getattr(options, "load_remote_workers", 0),
    )
    if (local is not None and local < 0) or remote < 0 or (local == 0 and not remote):
        raise UsageError(
            "the load stage needs at least one Locust worker",
            "pass --load-workers N (N >= 1), or --load-remote-workers M with workers joining",
        )
    args = ["--load-port", str(getattr(options, "load_port", 5557))]
    if getattr(options, "load_workers", None) is not None:
        args += ["--load-workers", str(options.load_workers)]
    if getattr(options, "load_remote_workers", 0):
        args += ["--load-remote-workers", str(options.load_remote_workers)]
    if getattr(options, "load_bind", None):
        args += ["--load-bind", options.load_bind]
    return args


def _describe(details: Mapping[str, Any]) -> list[str]:
    return describe(details)


def _html(details: Mapping[str, Any]) -> str:
    return html(details)


STAGE = Stage(
    name="load",
    help="a simulated fleet on Locust: rate-limit buckets, the shedding hint, write visibility "
    "under load (--load-workers; about a minute)",
    test_package="conformance.stages.load.test_load",
    plugins=PLUGINS,
    in_all=False,
    one_process=True,
    add_options=_add_options,
    pytest_args=_pytest_args,
    requirements=requirement_ids,
    describe=_describe,
    html=_html,
)
