"""Refused writes: try a create and a patch that must be refused, then prove they left no trace."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Unpack

from conformance.checks import expect
from conformance.drivers.call_options import ManagementOptions
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots, configuration_entries
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import same_json
from conformance.traffic.transcript import Reply

CONTENT = {"v": 1}
PATCH = [{"op": "replace", "path": "/v", "value": 2}]


@dataclass(frozen=True)
class Attempt:
    """A configuration that was patched, the name a create used, and both replies."""

    record: JsonObject
    name: str
    replies: tuple[Reply, Reply]


def listed_names(
    snapshots: Snapshots, environment: str = "development", ids: Sequence[str] = ()
) -> set[JsonValue]:
    """The configuration names an environment's status snapshot lists."""
    body = snapshots.snapshot(environment)
    entries = configuration_entries(body, ids, f"the {environment} snapshot")
    return {e.get("name") for e in entries}


def attempt_writes(
    configurations: Configurations,
    ids: tuple[str, ...],
    label: str,
    **request: Unpack[ManagementOptions],
) -> Attempt:
    """Make a victim configuration, then create and patch with ``request`` (bad credentials or
    headers). The create's name is unique per call, so a create leaked by one case is never
    found by another case (which may concern another requirement)."""
    record = configurations.create_ok(f"{label}victim", CONTENT, ids=ids)
    client = configurations.client
    name = client.name(f"{label}intruder-{secrets.token_hex(4)}")
    created = client.management(
        "POST", "/configuration", json_body=configurations.create_body(name, CONTENT), **request
    )
    patched = client.management(
        "PATCH",
        f"/configuration/{record['id']}",
        json_body=configurations.patch_body(PATCH),
        **request,
    )
    return Attempt(record, name, (created, patched))


def expect_no_trace(
    snapshots: Snapshots,
    ids: tuple[str, ...],
    attempt: Attempt,
    environments: tuple[str, ...] = ("development",),
) -> None:
    """Neither the refused create nor the refused patch changed what the SDK serves."""
    for environment in environments:
        expect(
            attempt.name not in listed_names(snapshots, environment, ids),
            ids,
            "a refused create still made a configuration",
            f"no configuration named {attempt.name!r} in {environment}",
            "it is listed in the snapshot",
        )
    documents = snapshots.documents("development", ids)
    expect(
        same_json(documents.get(attempt.record["id"]), CONTENT),
        ids,
        "a refused patch still changed the content",
        repr(CONTENT),
        repr(documents.get(attempt.record["id"])),
    )
