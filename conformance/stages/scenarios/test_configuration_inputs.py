"""Scenarios: management inputs (spec 4.1, 9): environment_id, path ids, the v2 paths."""

from __future__ import annotations

import pytest

from conformance.checks import expect_4xx, expect_status
from conformance.drivers.management import Configurations
from conformance.drivers.refusals import attempt_writes, expect_no_trace
from conformance.drivers.sdk import Snapshots
from conformance.errors import NotConfigured

requirement = pytest.mark.requirement


def _write_with_environment(
    configurations: Configurations,
    snapshots: Snapshots,
    ids: tuple[str, ...],
    environment_header: dict[str, str],
) -> None:
    """Create and patch carrying ``environment_header`` are refused and write nothing."""
    attempt = attempt_writes(
        configurations, ids, "env-", environment=None, headers=environment_header
    )
    for reply in attempt.replies:
        expect_4xx(reply, ids, "a bad environment_id was accepted")
    expect_no_trace(snapshots, ids, attempt, tuple(configurations.profile.project.environments))


@requirement("CFG-ENV-ID-REQUIRED")
@pytest.mark.parametrize(
    "value", [None, "abc", "", "1.5", "-1"], ids=["absent", "text", "empty", "fraction", "negative"]
)
def test_environment_id_is_required_and_numeric(
    configurations: Configurations, snapshots: Snapshots, value: str | None
) -> None:
    header = {} if value is None else {"environment_id": value}
    _write_with_environment(configurations, snapshots, ("CFG-ENV-ID-REQUIRED",), header)


@requirement("CFG-ENV-ID-UNKNOWN")
@pytest.mark.parametrize("which", ["foreign", "nonexistent"])
def test_environment_of_another_project_is_refused(
    configurations: Configurations, snapshots: Snapshots, which: str
) -> None:
    project = configurations.profile.project
    if which == "foreign":
        if project.foreign_environment_id is None:
            raise NotConfigured("project.foreign_environment_id")
        value = project.foreign_environment_id
    else:
        value = max([*project.environments.values(), project.foreign_environment_id or 0]) + 7919
    header = {"environment_id": str(value)}
    _write_with_environment(configurations, snapshots, ("CFG-ENV-ID-UNKNOWN",), header)


@requirement("CFG-PATH-IDS-NUMERIC")
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/application/abc/v2/configuration"),
        ("POST", "/application/1.5/v2/configuration"),
        ("PATCH", "/application/{app}/v2/configuration/abc"),
        ("PATCH", "/application/{app}/v2/configuration/-1x"),
        ("PATCH", "/application/abc/v2/configuration/1"),
    ],
)
def test_non_numeric_path_ids_are_refused(
    configurations: Configurations, method: str, path: str
) -> None:
    ids = ("CFG-PATH-IDS-NUMERIC",)
    client = configurations.client
    app = configurations.profile.project.application_id
    body = (
        configurations.create_body(client.name("path"), {"p": 1})
        if method == "POST"
        else configurations.patch_body([{"op": "add", "path": "/p", "value": 1}])
    )
    reply = client.request(
        method,
        path.format(app=app),
        headers={
            "Authorization": f"Bearer {configurations.profile.credentials.pat}",
            "environment_id": str(configurations.profile.environment_id("development")),
        },
        json_body=body,
    )
    expect_4xx(reply, ids, "a non-numeric path id was not refused")


@requirement("VER-PATH-V2")
def test_documented_v2_paths_serve(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("VER-PATH-V2",)
    record = configurations.create_ok("v2", {"v": 2}, ids=ids)
    configurations.patch_ok(record["id"], [{"op": "add", "path": "/w", "value": 1}], ids=ids)
    expect_status(snapshots.status(), 200, ids, "GET /sdk/v2/status did not serve")
    if snapshots.profile.capability("bootstrap"):
        expect_status(snapshots.bootstrap(), 200, ids, "GET /sdk/v2/bootstrap did not serve")
