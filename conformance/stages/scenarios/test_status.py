"""Scenarios: the status snapshot (spec 2.4, 4.3): shape, ETag, hashes that move when due.
Conditional requests (304, and 200 for every other hash) are ``test_conditional_requests``'s.

Other workers write to development while these run, so comparisons of whole-snapshot hashes
either bracket a read between two equal reads or run in production, which only the serialised
``production`` group writes.
"""

from __future__ import annotations

import json
import secrets

import pytest

from conformance.checks import (
    IndependentChecks,
    expect,
    expect_status,
    json_object,
    media_expected,
    media_problem,
    violation,
)
from conformance.checks.shapes import expect_shape
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import (
    Snapshots,
    configuration_entries,
    entry_of,
    etag_expected,
    etag_problem,
    settled,
)
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import json_difference, same_json
from conformance.oracles.shapes import status_entry_problems

requirement = pytest.mark.requirement
production_group = pytest.mark.xdist_group("production")


@requirement("SDK-STATUS-200-SNAPSHOT")
@pytest.mark.parametrize("environment", ["development", "production"])
def test_status_answers_a_snapshot(snapshots: Snapshots, environment: str) -> None:
    ids = ("SDK-STATUS-200-SNAPSHOT",)
    reply = snapshots.status(environment)
    expect_status(reply, 200, ids, "status did not answer 200")
    received = media_problem(reply.headers)
    expect(
        received is None,
        ids,
        "status 200 is not application/json",
        media_expected(),
        received or "",
        reply,
    )
    expect_shape("snapshot", json_object(reply, ids), ids, "status body is not a snapshot", reply)


@requirement("SDK-STATUS-MINIMAL-REQUEST")
def test_key_alone_is_enough(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-MINIMAL-REQUEST",)
    key = snapshots.key_covering("development").key
    reply = snapshots.client.status(key=key, instance_id=None)
    expect_status(reply, 200, ids, "a status poll with only the key was refused")
    expect_shape("snapshot", json_object(reply, ids), ids, "not a full snapshot", reply)


@requirement("SDK-STATUS-ETAG-EQUALS-HASH")
@pytest.mark.parametrize("environment", ["development", "production"])
def test_status_etag_is_the_hash(snapshots: Snapshots, environment: str) -> None:
    ids = ("SDK-STATUS-ETAG-EQUALS-HASH",)
    reply = snapshots.status(environment)
    body = snapshots.body(reply, ids)
    received = etag_problem(reply.headers, body.get("hash"))
    expect(
        received is None,
        ids,
        "the ETag is not an entity-tag carrying the body's hash",
        etag_expected(body.get("hash")),
        received or "",
        reply,
    )


@requirement("SDK-STATUS-NO-DOCUMENTS")
def test_status_entries_carry_hashes_not_documents(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-NO-DOCUMENTS",)
    marker = f"document-{secrets.token_hex(8)}"
    configurations.create_ok("entry", {"secret": marker}, ids=ids)
    reply = snapshots.status()
    body = snapshots.body(reply, ids)
    expect(
        marker not in json.dumps(body),
        ids,
        "the status snapshot carries a configuration's document (under some name)",
        "no document anywhere in the status snapshot (spec 4.3: the bootstrap's payload without "
        "the configuration documents)",
        f"the document's unique value {marker!r} is in the body",
        reply,
    )
    entries = body.get("configurations", [])
    if not isinstance(entries, list):
        raise violation(
            ids, "the snapshot has no array of configurations", "an array", repr(entries), reply
        )
    found = [
        f"entry {i}: {p}"
        for i, entry in enumerate(entries)
        for p in status_entry_problems(entry, snapshots.document_field)
    ]
    expect(
        not found, ids, "status entries are not id/name/alias/hash only", "", "; ".join(found[:3])
    )


@requirement("SDK-STATUS-LISTS-CONFIGURATIONS")
def test_status_lists_each_configuration_once(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-LISTS-CONFIGURATIONS",)
    records = [configurations.create_ok(f"listed-{n}", {"n": n}, ids=ids) for n in range(2)]
    body = snapshots.snapshot("development", ids)
    entries = configuration_entries(body, ids, "the development snapshot")
    for record in records:
        matching = [e for e in entries if same_json(e.get("id"), record["id"])]
        expect(
            len(matching) == 1
            and same_json(matching[0].get("name"), record.get("name"))
            and same_json(matching[0].get("alias"), record.get("alias")),
            ids,
            "a configuration is not listed once with its record's id, name and alias",
            f"one entry id={record['id']!r} name={record.get('name')!r} "
            f"alias={record.get('alias')!r}",
            repr(matching),
        )


@requirement("SDK-STATUS-PRIMARY-CONFIG")
def test_primary_configuration_is_listed(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-PRIMARY-CONFIG",)
    profile = snapshots.profile
    # every environment a key reaches: each snapshot's primary is one of its own configurations
    reached = [e for e in profile.project.environments if profile.key_for(e) is not None]
    for environment in reached:
        configurations.create_ok("primary", {"p": 1}, ids=ids, environment=environment)
        body = snapshots.snapshot(environment, ids)
        what = f"the {environment} snapshot"
        listed = [e.get("id") for e in configuration_entries(body, ids, what)]
        expect(
            body.get("primaryConfigurationId") in listed,
            ids,
            f"primaryConfigurationId names no configuration listed in {what}",
            f"one of {listed[:10]}",
            repr(body.get("primaryConfigurationId")),
        )


# ------------------------------------------------------------------ hashes over time


@requirement("SDK-STATUS-HASH-STABLE")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_hash_holds_without_writes(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-HASH-STABLE",)
    seen: list[JsonValue] = []

    def attempt() -> bool | None:
        seen.append(snapshots.snapshot("development", ids).get("hash"))
        seen.append(snapshots.snapshot("development", ids).get("hash"))
        return True if seen[-1] == seen[-2] else None

    expect(
        settled(attempt) is not None,
        ids,
        "consecutive polls never agreed on the hash, even with nothing written",
        "equal hashes from two back-to-back polls while no request of the suite is in flight",
        f"hashes read in pairs: {seen[-6:]!r} (the last pair with the suite's traffic halted)",
    )


@requirement("SDK-STATUS-HASH-MOVES-ON-WRITE")
@production_group
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_hash_moves_on_create_and_patch(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-HASH-MOVES-ON-WRITE",)
    before = snapshots.stable_hash("production", ids)
    record = configurations.create_ok("moves", {"v": 1}, ids=ids, environment="production")
    created = snapshots.snapshot("production", ids).get("hash")
    configurations.patch_ok(
        record["id"],
        [{"op": "replace", "path": "/v", "value": 2}],
        ids=ids,
        environment="production",
    )
    patched = snapshots.snapshot("production", ids).get("hash")
    with IndependentChecks() as independent:
        independent.check(
            not same_json(created, before),
            ids,
            "create kept the hash",
            f"not {before!r}",
            repr(created),
        )
        independent.check(
            not same_json(patched, created),
            ids,
            "patch kept the hash",
            f"not {created!r}",
            repr(patched),
        )


@requirement("SDK-STATUS-HASH-ENV-ISOLATED")
@production_group
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_write_leaves_other_environment_hash(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-HASH-ENV-ISOLATED",)
    before = snapshots.stable_hash("production", ids)
    record = configurations.create_ok("isolated", {"v": 1}, ids=ids)
    configurations.patch_ok(record["id"], [{"op": "replace", "path": "/v", "value": 2}], ids=ids)
    after = snapshots.snapshot("production", ids).get("hash")
    expect(
        same_json(after, before),
        ids,
        "a write in development moved production's hash",
        repr(before),
        repr(after),
    )


@requirement("SDK-STATUS-CONFIG-HASH-MOVES", "SDK-STATUS-CONFIG-HASH-OTHERS-STABLE")
def test_only_the_patched_configuration_hash_moves(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    changed = configurations.create_ok("changed", {"v": 1})
    untouched = configurations.create_ok("untouched", {"v": 1})
    before = snapshots.snapshot()
    configurations.patch_ok(changed["id"], [{"op": "replace", "path": "/v", "value": 2}])
    after = snapshots.snapshot()
    pairs = {
        name: (entry_of(before, r["id"]), entry_of(after, r["id"]))
        for name, r in (("changed", changed), ("untouched", untouched))
    }
    missing = sorted(
        f"{name} ({'before' if a is None else 'after'} the patch)"
        for name, (a, b) in pairs.items()
        if a is None or b is None
    )
    expect(
        not missing,
        (),
        "a created configuration is not listed in the development snapshot",
        "each configuration created in development listed in its snapshot "
        "(SDK-STATUS-LISTS-CONFIGURATIONS)",
        f"not listed: {', '.join(missing)}",
    )
    with IndependentChecks() as independent:
        old, new = pairs["changed"]
        independent.check(
            old["hash"] != new["hash"],  # type: ignore[index]
            ("SDK-STATUS-CONFIG-HASH-MOVES",),
            "the patched configuration kept its hash",
            f"a hash other than {old['hash']!r}",  # type: ignore[index]
            repr(new["hash"]),  # type: ignore[index]
        )
        old, new = pairs["untouched"]
        independent.check(
            old == new,
            ("SDK-STATUS-CONFIG-HASH-OTHERS-STABLE",),
            "an untouched configuration's entry changed",
            repr(old),
            repr(new),
        )


@requirement("SDK-STATUS-ENV-ISOLATION")
@production_group
def test_configuration_appears_only_in_its_environment(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-ENV-ISOLATION",)
    made = {
        env: configurations.create_ok(f"in-{env}", {"env": env}, ids=ids, environment=env)["id"]
        for env in ("development", "production")
    }
    listed = {
        env: {
            e.get("id")
            for e in configuration_entries(snapshots.snapshot(env, ids), ids, f"the {env} snapshot")
        }
        for env in ("development", "production")
    }
    for env, other in (("development", "production"), ("production", "development")):
        expect(
            made[env] in listed[env] and made[env] not in listed[other],
            ids,
            f"a configuration created in {env} is not listed there only",
            f"id {made[env]} in {env}'s snapshot and not in {other}'s",
            f"in {env}: {made[env] in listed[env]}, in {other}: {made[env] in listed[other]}",
        )


# Patches that change only a JSON type or only member order: each is a change of content.
TYPED: JsonObject = {"flag": True, "one": 1, "b": {"y": 1, "x": 2}, "a": None}
TYPE_OR_ORDER_CHANGES: list[tuple[str, list[JsonObject], dict[str, list[str]] | None]] = [
    ("a value (the baseline)", [{"op": "replace", "path": "/one", "value": 2}], None),
    ("true to 1", [{"op": "replace", "path": "/flag", "value": 1}], None),
    # not 1 to 1.0: one JSON number either way (RFC 8259), so neither a moved nor a kept hash
    # can be demanded of it
    ("null to false", [{"op": "replace", "path": "/a", "value": False}], None),
    ("member order only", [], {"/b": ["x", "y"]}),
]


@requirement(
    "CFG-CONTENT-HASH-TRACKS-CONTENT", "CFG-CONTENT-HASH-STABLE", "SDK-STATUS-CONFIG-HASH-MOVES"
)
@pytest.mark.parametrize(
    ("change", "operations", "sidecar"),
    TYPE_OR_ORDER_CHANGES,
    ids=[c[0] for c in TYPE_OR_ORDER_CHANGES],
)
def test_a_change_of_type_or_order_moves_the_hashes(
    configurations: Configurations,
    snapshots: Snapshots,
    change: str,
    operations: list[JsonObject],
    sidecar: dict[str, list[str]] | None,
) -> None:
    """JSON keeps its types and, where the target declares key order, order is content: a hash
    over a form where true is 1 or members are sorted misses such a change. Judged on
    what the record shows: a patch whose record shows the content as it was keeps its hash."""
    ordered = configurations.profile.capability("key_order")
    if sidecar is not None and not ordered:
        operations, sidecar = [{"op": "replace", "path": "/b/x", "value": 3}], None
    label = "typed-" + "-".join(change.split())  # one name per case: none shares another's alias
    record = configurations.create_ok(label, TYPED)
    before = entry_of(snapshots.snapshot(), record["id"])
    if sidecar is None:
        after = configurations.patch_ok(record["id"], operations)
    else:
        after = configurations.patch_ok(record["id"], operations, key_order=sidecar)
    listed = entry_of(snapshots.snapshot(), record["id"])
    changed = json_difference(
        record.get("configuration"), after.get("configuration"), ordered=ordered
    )
    with IndependentChecks() as independent:
        if changed is None:
            independent.check(
                same_json(record.get("contentHash"), after.get("contentHash")),
                ("CFG-CONTENT-HASH-STABLE",),
                f"contentHash moved though the record shows the content as it was ({change})",
                repr(record.get("contentHash")),
                repr(after.get("contentHash")),
            )
            return
        independent.check(
            not same_json(record.get("contentHash"), after.get("contentHash")),
            ("CFG-CONTENT-HASH-TRACKS-CONTENT",),
            f"contentHash did not move with a change of {change}",
            f"a hash other than {record.get('contentHash')!r} (the content changed: {changed})",
            repr(after.get("contentHash")),
        )
        if before is None or listed is None:
            independent.check(
                False,
                ("SDK-STATUS-CONFIG-HASH-MOVES",),
                "a created configuration is not listed in the development snapshot",
                "its entry before and after the patch (SDK-STATUS-LISTS-CONFIGURATIONS)",
                f"listed before the patch: {before is not None}, after: {listed is not None}",
            )
            return
        independent.check(
            not same_json(before.get("hash"), listed.get("hash")),
            ("SDK-STATUS-CONFIG-HASH-MOVES",),
            f"the configuration's status hash did not move with a change of {change}",
            f"a hash other than {before.get('hash')!r} (the content changed: {changed})",
            repr(listed.get("hash")),
        )
