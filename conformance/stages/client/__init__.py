"""The client stage: the kit plays the server (a scripted one), runs the SDK client under test,
and judges what the client sent against the client rules of spec 4.3 and 8.

``STAGE`` declares it to the registry: subject ``client``, not part of ``--stage all`` (it
certifies a client, not the target server). Nothing heavy is imported here.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.stages.client.chart import stage_html
from conformance.stages.client.scenarios import requirement_ids
from conformance.stages.client.summary import merge_details, summary_lines
from conformance.stages.declaration import Details, Stage

TEST_PACKAGE = "conformance.stages.client"


def _add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--client-command",
        metavar="COMMAND",
        default=None,
        help="client stage: the command that starts the client under test (default: the "
        "reference client)",
    )
    group.add_argument(
        "--client-time-scale",
        metavar="SCALE",
        type=float,
        default=None,
        help="client stage: multiplies every time of the stage (default: client.time_scale)",
    )


def pytest_args(options: argparse.Namespace) -> list[str]:
    """The client stage's own pytest arguments from parsed options."""
    args = []
    command = getattr(options, "client_command", None)
    if command is not None:
        args += ["--client-command", command]
    scale = getattr(options, "client_time_scale", None)
    if scale is not None:
        args += ["--client-time-scale", f"{scale:g}"]
    return args


def _requirements() -> frozenset[str]:
    return requirement_ids()


def _merge(parts: Sequence[Details]) -> Details:
    return merge_details(parts)


def _describe(details: Mapping[str, Any]) -> list[str]:
    return summary_lines(details)


def _html(details: Mapping[str, Any]) -> str:
    return stage_html(details)


STAGE = Stage(
    name="client",
    help="certify an SDK client: the kit plays a scripted server (--client-command)",
    test_package=TEST_PACKAGE,
    plugins=(
        "xdist.plugin",
        "pytest_base_url.plugin",
        "allure_pytest.plugin",
        "conformance.run.plugin",
    ),
    subject="client",
    in_all=False,
    one_process=True,
    add_options=_add_options,
    pytest_args=pytest_args,
    requirements=_requirements,
    merge_details=_merge,
    describe=_describe,
    html=_html,
)
