"""Scenarios: the configuration patches a target must refuse or serialise (spec 2.3, 4.1): stale
bases, inapplicable and malformed operations, atomicity, concurrent writers, other projects."""

from __future__ import annotations

import threading

import pytest

from conformance.checks import IndependentChecks, expect, json_object
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots, configuration_entries, entry_of
from conformance.errors import NotConfigured
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import same_json
from conformance.oracles.patch_vectors import canonical
from conformance.stages.scenarios.patching import (
    BASE,
    base_token,
    expect_2xx,
    expect_refused,
    oracle,
    stored,
)
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement

INAPPLICABLE: list[tuple[str, list[JsonObject]]] = [
    ("failing-test", [{"op": "test", "path": "/economy/coins", "value": 99999}]),
    ("remove-missing", [{"op": "remove", "path": "/nope"}]),
    ("replace-missing", [{"op": "replace", "path": "/economy/nope", "value": 1}]),
    ("add-missing-parent", [{"op": "add", "path": "/nope/deeper", "value": 1}]),
    ("index-out-of-range", [{"op": "add", "path": "/list/99", "value": 1}]),
    ("move-into-own-child", [{"op": "move", "from": "/economy", "path": "/economy/inner"}]),
]

MALFORMED: list[tuple[str, JsonValue]] = [
    ("not-a-list", {"op": "add", "path": "/x", "value": 1}),
    ("unknown-op", [{"op": "merge", "path": "/x", "value": 1}]),
    ("missing-path", [{"op": "add", "value": 1}]),
    ("missing-value", [{"op": "add", "path": "/x"}]),
    ("missing-from", [{"op": "move", "path": "/x"}]),
    ("pointer-without-slash", [{"op": "add", "path": "x", "value": 1}]),
]


# ------------------------------------------------------------------ conflicts


# What a stale patch touches, against the patch that moved the content on (``/n``): a base is
# stale whatever the two patches touch (spec 4.1 rule 3 names no merge of disjoint changes).
STALE_PATCHES: list[tuple[str, list[JsonObject]]] = [
    ("same-member", [{"op": "replace", "path": "/n", "value": 2}]),
    ("other-member", [{"op": "replace", "path": "/m", "value": 2}]),
    ("new-member", [{"op": "add", "path": "/new", "value": 2}]),
    ("removal", [{"op": "remove", "path": "/m"}]),
    ("whole-document", [{"op": "replace", "path": "", "value": {"n": 2}}]),
    ("test-only", [{"op": "test", "path": "/m", "value": 0}]),
]


@requirement("CFG-PATCH-409-STALE-BASE")
@pytest.mark.parametrize("operations", [pytest.param(o, id=n) for n, o in STALE_PATCHES])
def test_stale_base_conflicts(configurations: Configurations, operations: list[JsonObject]) -> None:
    ids = ("CFG-PATCH-409-STALE-BASE",)
    record = configurations.create_ok("stale", {"n": 0, "m": 0}, ids=ids)
    stale = base_token(configurations, record, ids)
    # Set-up: move the content on with a patch naming no baseHash, so this scenario does not
    # depend on a current base being accepted (CFG-PATCH-CURRENT-BASE-ACCEPTED).
    moved = configurations.patch(record["id"], [{"op": "replace", "path": "/n", "value": 1}])
    expect_2xx(moved, ids, "a patch without baseHash (every field optional, spec 2.3) was refused")
    reply = configurations.patch(record["id"], operations, base_hash=stale)
    expect_refused(reply, ids, "a patch from a stale base was not a conflict", (409,))


@requirement("CFG-PATCH-CURRENT-BASE-ACCEPTED")
def test_current_base_is_accepted(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-CURRENT-BASE-ACCEPTED",)
    record = configurations.create_ok("current-base", {"n": 0}, ids=ids)
    first = configurations.patch(
        record["id"],
        [{"op": "replace", "path": "/n", "value": 1}],
        base_hash=base_token(configurations, record, ids),
    )
    expect_2xx(first, ids, "a patch from the current base was refused")
    current = base_token(configurations, json_object(first, ids), ids, first)
    second = configurations.patch(
        record["id"], [{"op": "replace", "path": "/n", "value": 2}], base_hash=current
    )
    expect_2xx(second, ids, "a patch from the new current base was refused")


@requirement("CFG-PATCH-409-INAPPLICABLE")
@pytest.mark.parametrize("operations", [pytest.param(o, id=n) for n, o in INAPPLICABLE])
def test_inapplicable_patch_conflicts(
    configurations: Configurations, operations: list[JsonObject]
) -> None:
    ids = ("CFG-PATCH-409-INAPPLICABLE",)
    record = configurations.create_ok("inapplicable", BASE, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_refused(reply, ids, "an inapplicable patch was not a conflict", (409,))


@requirement("CFG-PATCH-409-NOTHING-CHANGES")
@pytest.mark.xdist_group("production")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_nothing_changes_after_a_conflict(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    """In production, which only this serialised group writes, so its snapshot hash is quiet."""
    ids = ("CFG-PATCH-409-NOTHING-CHANGES",)
    record = configurations.create_ok("quiet-409", BASE, ids=ids, environment="production")
    current = configurations.patch_ok(
        record["id"],
        [{"op": "replace", "path": "/list/0", "value": "patched"}],
        ids=ids,
        environment="production",
    )
    hash_before = snapshots.stable_hash("production", ids)
    stale = configurations.patch(
        record["id"],
        [{"op": "replace", "path": "/list/0", "value": "stale"}],
        base_hash=base_token(configurations, record, ids),
        environment="production",
    )
    inapplicable = configurations.patch(
        record["id"],
        [{"op": "add", "path": "/first", "value": 1}, {"op": "remove", "path": "/nope"}],
        environment="production",
    )
    conflicts = [r for r in (stale, inapplicable) if r.status == 409]
    expect(
        bool(conflicts),
        ids,
        "neither a stale base nor an inapplicable patch answered 409",
        "HTTP 409 for a stale base or a patch that cannot be applied (spec 4.1 rule 3)",
        f"{stale.describe()} | {inapplicable.describe()}",
        stale,
    )
    served = stored(configurations, snapshots, record, ids)
    hash_after = snapshots.snapshot("production", ids).get("hash")
    with IndependentChecks() as independent:
        expected = current.get("configuration")
        independent.check(
            same_json(served, expected),
            ids,
            "a 409 changed the content",
            repr(expected),
            repr(served),
        )
        independent.check(
            same_json(hash_after, hash_before),
            ids,
            "a 409 moved the environment's snapshot hash",
            repr(hash_before),
            repr(hash_after),
        )


@requirement("CFG-PATCH-ATOMIC")
def test_patch_is_atomic(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("CFG-PATCH-ATOMIC",)
    record = configurations.create_ok("atomic", BASE, ids=ids)
    reply = configurations.patch(
        record["id"],
        [
            {"op": "add", "path": "/added", "value": 1},
            {"op": "replace", "path": "/economy/coins", "value": 0},
            {"op": "remove", "path": "/does/not/exist"},
        ],
    )
    expect(
        not 200 <= reply.status < 300,
        ids,
        "a patch whose last operation cannot apply was accepted",
        "a refusal (RFC 6902: a patch is applied whole or not at all; removing a missing "
        "member fails it)",
        reply.describe(),
        reply,
    )
    served = stored(configurations, snapshots, record, ids)
    expect(
        same_json(served, BASE),
        ids,
        "a failed patch kept some of its operations",
        repr(BASE),
        repr(served),
        reply,
    )


@requirement("CFG-PATCH-CONCURRENT-ONE-WINS")
@pytest.mark.parametrize("own_members", [False, True], ids=["same-member", "own-members"])
def test_concurrent_writers_one_wins(
    configurations: Configurations, snapshots: Snapshots, own_members: bool
) -> None:
    """Writers from one base, each writing the same member or a member of its own: one wins."""
    ids = ("CFG-PATCH-CONCURRENT-ONE-WINS",)
    writers = 4
    document: JsonObject = {f"w{i}": None for i in range(writers)} if own_members else {}
    document["winner"] = None
    record = configurations.create_ok("race", document, ids=ids)
    base = base_token(configurations, record, ids)
    gate = threading.Barrier(writers)
    replies: list[Reply | None] = [None] * writers

    def operations(index: int) -> list[JsonObject]:
        member = f"/w{index}" if own_members else "/winner"
        return [{"op": "replace", "path": member, "value": index}]

    def write(index: int) -> None:
        gate.wait()
        replies[index] = configurations.patch(record["id"], operations(index), base_hash=base)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = [r.status if r is not None else None for r in replies]
    winners = [i for i, s in enumerate(statuses) if s is not None and 200 <= s < 300]
    expect(
        len(winners) == 1 and statuses.count(409) == writers - 1,
        ids,
        "concurrent patches from one base did not have exactly one winner",
        f"one 2xx and {writers - 1} times 409",
        f"statuses {statuses}",
    )
    served = stored(configurations, snapshots, record, ids)
    expected = oracle(document, operations(winners[0]))
    expect(
        same_json(expected, served),
        ids,
        "the stored content is not the winner's result",
        canonical(expected),
        canonical(served),
    )


@requirement("CFG-PATCH-MALFORMED-REFUSED")
@pytest.mark.parametrize("operations", [pytest.param(o, id=n) for n, o in MALFORMED])
def test_malformed_patch_is_refused(
    configurations: Configurations, snapshots: Snapshots, operations: JsonValue
) -> None:
    ids = ("CFG-PATCH-MALFORMED-REFUSED",)
    record = configurations.create_ok("malformed", BASE, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_refused(reply, ids, "a malformed patch was not refused")
    served = stored(configurations, snapshots, record, ids)
    expect(
        same_json(served, BASE), ids, "a malformed patch changed content", repr(BASE), repr(served)
    )


@requirement("CFG-PATCH-OTHER-PROJECT-CONFIG")
def test_patch_cannot_reach_another_project(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("CFG-PATCH-OTHER-PROJECT-CONFIG",)
    profile = configurations.profile
    foreign_key = profile.credentials.foreign_sdk_key
    if foreign_key is None:
        raise NotConfigured(
            "credentials.foreign_sdk_key", "the profile declares no key to find a foreign config"
        )
    foreign = snapshots.body(
        configurations.client.status(key=foreign_key), ids, "the foreign project's snapshot"
    )
    own = {
        e.get("id")
        for env in ("development", "production")
        for e in configuration_entries(snapshots.snapshot(env, ids), ids, f"the {env} snapshot")
    }
    foreign_entries = configuration_entries(foreign, ids, "the foreign project's snapshot")
    entries = [e for e in foreign_entries if e.get("id") not in own]
    if not entries:
        raise NotConfigured(
            "credentials.foreign_sdk_key",
            "the foreign project (the project of credentials.foreign_sdk_key) lists no "
            "configuration to aim a patch at: create one there",
        )
    victim = entries[0]
    reply = configurations.patch(victim["id"], [{"op": "add", "path": "/hijacked", "value": 1}])
    expect_refused(reply, ids, "a patch reached another project's configuration")
    after = snapshots.body(configurations.client.status(key=foreign_key), ids)
    expect(
        same_json(entry_of(after, victim["id"]), victim),
        ids,
        "the other project's configuration changed",
        repr(victim),
        repr(entry_of(after, victim["id"])),
    )
