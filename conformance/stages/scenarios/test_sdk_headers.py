"""Scenarios: the status endpoint's headers (spec 4.3, 8): environment alias, numeric, instance id.

Header names come from the profile; the bounds are the specification's.
"""

from __future__ import annotations

import pytest

from conformance.checks import expect, expect_status, json_object
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import (
    OUT_OF_SCOPE_STATUS,
    Snapshots,
    bracketed,
    configuration_entries,
    no_snapshot,
)
from conformance.errors import NotConfigured
from conformance.oracles.json_equality import same_json
from conformance.oracles.shapes import expect_shape
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement
MAX_SAFE = 9007199254740991


def refused(reply: Reply) -> bool:
    return 400 <= reply.status < 500


def _hash(snapshots: Snapshots, key: str, environment: str | None) -> object:
    reply = snapshots.client.status(key=key, environment=environment)
    return json_object(reply).get("hash") if reply.status == 200 else f"HTTP {reply.status}"


def _apart(
    configurations: Configurations,
    snapshots: Snapshots,
    key: str,
    other: str | None,
    ids: tuple[str, ...],
) -> tuple[object, object]:
    """(development's hash, the hash read with alias ``other``), once development and production
    are known to differ, so that the comparison tells development from production.

    Creates a configuration in development (with the run prefix; production, which only the
    serialised ``production`` group writes, stays untouched), then reads development and
    production around the other read. If they still serve the same snapshot, which one the
    other alias selects cannot be told, and the target broke its hash rules: the create moves
    development's hash and leaves production's (a violation of ``ids``, which need the two
    apart)."""
    configurations.create_ok("alias-apart", {"apart": 1}, ids=ids)
    production_key = snapshots.key_covering("production").key

    def both() -> tuple[object, object]:
        return _hash(snapshots, key, "development"), _hash(snapshots, production_key, "production")

    def read() -> tuple[object, object]:  # shaped like both(): bracketed takes one type
        return _hash(snapshots, key, other), None

    (development, production), (value, _) = bracketed(both, read, ids)
    expect(
        development != production,
        ids,
        "development and production serve the same snapshot after a create in development only",
        "two different snapshot hashes (a create in development moves its hash and leaves "
        "production's: SDK-STATUS-HASH-MOVES-ON-WRITE, SDK-STATUS-HASH-ENV-ISOLATED)",
        f"both {development!r}",
    )
    return development, value


@requirement("SDK-HDR-ENV-DEFAULT-DEVELOPMENT")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_no_alias_means_development(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("SDK-HDR-ENV-DEFAULT-DEVELOPMENT",)
    key = snapshots.key_covering("development", "production").key
    development, omitted = _apart(configurations, snapshots, key, None, ids)
    expect(
        omitted == development,
        ids,
        "without an alias the snapshot is not development's",
        f"development's hash {development!r}",
        repr(omitted),
    )


@requirement("SDK-HDR-ENV-STUDIO-SYNONYM")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_studio_is_development(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("SDK-HDR-ENV-STUDIO-SYNONYM",)
    key = snapshots.key_covering("development").key
    development, studio = _apart(configurations, snapshots, key, "studio", ids)
    expect(
        studio == development,
        ids,
        "studio does not answer the development snapshot",
        f"development's hash {development!r}",
        repr(studio),
    )


@requirement("SDK-HDR-ENV-PRODUCTION")
@pytest.mark.xdist_group("production")
def test_production_alias_selects_production(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-HDR-ENV-PRODUCTION",)
    record = configurations.create_ok("prod-only", {"p": 1}, ids=ids, environment="production")
    key = snapshots.key_covering("development", "production").key
    reply = snapshots.client.status(key=key, environment="production")
    body = snapshots.body(reply, ids)
    listed = {e.get("id") for e in configuration_entries(body, ids, "the production snapshot")}
    development = _hash(snapshots, key, "development")
    expect(
        record["id"] in listed and not same_json(body.get("hash"), development),
        ids,
        "the production alias did not answer production's snapshot",
        f"a snapshot listing production configuration {record['id']} (hash unlike development's)",
        f"listed ids {sorted(listed, key=str)[:10]}, hash {body.get('hash')!r} "
        f"(development {development!r})",
        reply,
    )


@requirement("SDK-HDR-ENV-UNKNOWN-VALUE")
@pytest.mark.parametrize("alias", ["", "staging", "prod", "developmentx"])
def test_unknown_alias_is_refused(snapshots: Snapshots, alias: str) -> None:
    ids = ("SDK-HDR-ENV-UNKNOWN-VALUE",)
    key = snapshots.key_covering("development", "production").key
    reply = snapshots.client.status(key=key, environment=alias)
    expect(
        refused(reply) and no_snapshot(reply),
        ids,
        f"environment alias {alias!r} was not refused",
        "a 4xx without a snapshot",
        reply.describe(),
        reply,
    )


def _scope_cases(snapshots: Snapshots) -> list[tuple[str, str, bool]]:
    """(key, alias, in scope) for every profile key against every alias."""
    cases = []
    keys = list(snapshots.profile.credentials.sdk_keys)
    for key in keys:
        for alias in ("development", "production", "studio"):
            scope_name = "development" if alias == "studio" else alias
            cases.append((key.key, alias, scope_name in key.environments))
    return cases


@requirement("SDK-HDR-ENV-OUT-OF-SCOPE-403")
def test_alias_outside_the_key_scope_is_forbidden(snapshots: Snapshots) -> None:
    ids = ("SDK-HDR-ENV-OUT-OF-SCOPE-403",)
    forbidden = OUT_OF_SCOPE_STATUS
    cases = [(k, a) for k, a, inside in _scope_cases(snapshots) if not inside]
    if not cases:
        raise NotConfigured(
            "credentials.sdk_keys",
            "every profile key covers every environment: add a key scoped to fewer environments",
        )
    for key, alias in cases:
        reply = snapshots.client.status(key=key, environment=alias)
        expect(
            reply.status == forbidden and no_snapshot(reply),
            ids,
            f"alias {alias!r} outside the key's scope was not forbidden",
            f"HTTP {forbidden} without a snapshot",
            reply.describe(),
            reply,
        )


@requirement("AUTH-SDK-ENV-IN-SCOPE")
def test_alias_inside_the_key_scope_is_served(snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-ENV-IN-SCOPE",)
    for key, alias, inside in _scope_cases(snapshots):
        if not inside:
            continue
        reply = snapshots.client.status(key=key, environment=alias)
        expect_status(reply, 200, ids, f"alias {alias!r} inside the key's scope was not served")
        expect_shape("snapshot", json_object(reply, ids), ids, "not a snapshot", reply)


@requirement("SDK-HDR-NUMERIC-IN-BOUNDS")
@pytest.mark.parametrize("value", ["1", str(MAX_SAFE)])
def test_numeric_header_in_bounds(snapshots: Snapshots, value: str) -> None:
    ids = ("SDK-HDR-NUMERIC-IN-BOUNDS",)
    reply = snapshots.status(headers={snapshots.profile.headers.numeric: value})
    expect_status(reply, 200, ids, f"numeric header {value} was refused")


@requirement("SDK-HDR-NUMERIC-OUT-OF-BOUNDS")
@pytest.mark.parametrize("value", ["0", "-1", str(MAX_SAFE + 1), "99999999999999999999", "abc"])
def test_numeric_header_out_of_bounds(snapshots: Snapshots, value: str) -> None:
    ids = ("SDK-HDR-NUMERIC-OUT-OF-BOUNDS",)
    reply = snapshots.status(headers={snapshots.profile.headers.numeric: value})
    expect(
        refused(reply),
        ids,
        f"numeric header {value} was accepted",
        "a 4xx",
        reply.describe(),
        reply,
    )


@requirement("SDK-HDR-INSTANCE-ID-LENGTH")
@pytest.mark.parametrize("length", [1, 128])
def test_instance_id_lengths_accepted(snapshots: Snapshots, length: int) -> None:
    ids = ("SDK-HDR-INSTANCE-ID-LENGTH",)
    instance = (snapshots.client.new_instance_id() + "-" + "x" * 128)[:length]
    reply = snapshots.status(instance_id=instance)
    expect_status(reply, 200, ids, f"an instance id of {length} characters was refused")


@requirement("SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS")
@pytest.mark.parametrize("length", [0, 129, 300])
def test_instance_id_out_of_bounds(snapshots: Snapshots, length: int) -> None:
    ids = ("SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS",)
    instance = (snapshots.client.new_instance_id() + "-" + "x" * 300)[:length]
    reply = snapshots.status(instance_id=instance)
    expect(
        refused(reply),
        ids,
        f"an instance id of {length} characters was accepted",
        "a 4xx",
        reply.describe(),
        reply,
    )
