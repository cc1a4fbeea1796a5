"""Scenarios: patching configurations with RFC 6902 (spec 2.3, 4.1) against the jsonpatch oracle."""

from __future__ import annotations

import copy
import threading
from datetime import datetime
from typing import Any

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.checks import IndependentChecks, expect, json_object, violation
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots, configuration_entries, entry_of
from conformance.errors import NotConfigured
from conformance.oracles.shapes import expect_shape
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement

BASE: dict[str, Any] = {
    "economy": {"coins": 100, "gems": 5, "shop": ["sword", "shield", "potion"]},
    "a/b": "slash",
    "m~n": "tilde",
    "flags": {"night": False, "event": None},
    "list": [1, 2, 3, 4],
}

# Each case: requirement id, name, starting document, operations. The oracle gives the result.
APPLICABLE: list[tuple[str, str, Any, list[dict[str, Any]]]] = [
    (
        "CFG-PATCH-OPS-ADD-REMOVE-REPLACE",
        "add-remove-replace",
        BASE,
        [
            {"op": "add", "path": "/economy/tickets", "value": {"daily": 3}},
            {"op": "remove", "path": "/flags/event"},
            {"op": "replace", "path": "/economy/coins", "value": 250},
        ],
    ),
    (
        "CFG-PATCH-OPS-ADD-REMOVE-REPLACE",
        "escaped-pointers",
        BASE,
        [
            {"op": "replace", "path": "/a~1b", "value": "still slash"},
            {"op": "remove", "path": "/m~0n"},
            {"op": "add", "path": "/new~1key~0x", "value": [None]},
        ],
    ),
    (
        "CFG-PATCH-OPS-ADD-REMOVE-REPLACE",
        "replace-whole-member",
        BASE,
        [{"op": "replace", "path": "/economy", "value": {"coins": 0}}],
    ),
    (
        "CFG-PATCH-OPS-MOVE-COPY",
        "move-and-copy",
        BASE,
        [
            {"op": "move", "from": "/economy/gems", "path": "/gems"},
            {"op": "copy", "from": "/economy/shop", "path": "/shopBackup"},
            {"op": "move", "from": "/flags/night", "path": "/economy/night"},
        ],
    ),
    (
        "CFG-PATCH-OPS-TEST",
        "passing-test",
        BASE,
        [
            {"op": "test", "path": "/economy/coins", "value": 100},
            {"op": "test", "path": "/a~1b", "value": "slash"},
            {"op": "replace", "path": "/economy/coins", "value": 101},
        ],
    ),
    (
        "CFG-PATCH-OPS-ARRAYS",
        "array-indexes",
        BASE,
        [
            {"op": "add", "path": "/list/1", "value": "inserted"},
            {"op": "replace", "path": "/list/0", "value": "first"},
            {"op": "remove", "path": "/list/3"},
            {"op": "add", "path": "/list/-", "value": "appended"},
            {"op": "add", "path": "/economy/shop/0", "value": "bow"},
        ],
    ),
]

INAPPLICABLE: list[tuple[str, list[dict[str, Any]]]] = [
    ("failing-test", [{"op": "test", "path": "/economy/coins", "value": 99999}]),
    ("remove-missing", [{"op": "remove", "path": "/nope"}]),
    ("replace-missing", [{"op": "replace", "path": "/economy/nope", "value": 1}]),
    ("add-missing-parent", [{"op": "add", "path": "/nope/deeper", "value": 1}]),
    ("index-out-of-range", [{"op": "add", "path": "/list/99", "value": 1}]),
    ("move-into-own-child", [{"op": "move", "from": "/economy", "path": "/economy/inner"}]),
]

MALFORMED: list[tuple[str, Any]] = [
    ("not-a-list", {"op": "add", "path": "/x", "value": 1}),
    ("unknown-op", [{"op": "merge", "path": "/x", "value": 1}]),
    ("missing-path", [{"op": "add", "value": 1}]),
    ("missing-value", [{"op": "add", "path": "/x"}]),
    ("missing-from", [{"op": "move", "path": "/x"}]),
    ("pointer-without-slash", [{"op": "add", "path": "x", "value": 1}]),
]


def oracle(document: Any, operations: list[dict[str, Any]]) -> Any:
    return jsonpatch.apply_patch(copy.deepcopy(document), operations)


def order(value: Any) -> Any:
    """Key order of every object, as nested lists (dict equality ignores order)."""
    if isinstance(value, dict):
        return [[k, order(v)] for k, v in value.items()]
    if isinstance(value, list):
        return [order(v) for v in value]
    return value


def content_of(reply: Reply, ids: tuple[str, ...]) -> Any:
    return json_object(reply, ids, "a configuration record").get("configuration")


def expect_2xx(reply: Reply, ids: tuple[str, ...], title: str) -> None:
    expect(200 <= reply.status < 300, ids, title, "HTTP 2xx", reply.describe(), reply)


def expect_refused(
    reply: Reply, ids: tuple[str, ...], title: str, statuses: tuple[int, ...] = ()
) -> None:
    ok = reply.status in statuses if statuses else 400 <= reply.status < 500
    wanted = " or ".join(map(str, statuses)) if statuses else "a 4xx"
    expect(ok, ids, title, f"HTTP {wanted}", reply.describe(), reply)


def stored(
    configurations: Configurations,
    snapshots: Snapshots,
    record: dict[str, Any],
    ids: tuple[str, ...],
) -> Any:
    environment = _alias(snapshots, configurations.environment_of(record), ids)
    documents = snapshots.documents(environment, ids)
    expect(
        record["id"] in documents,
        ids,
        "a configuration the target created is not listed in its environment's bootstrap",
        f"configuration {record['id']} listed in the {environment} bootstrap snapshot",
        f"listed ids {sorted(documents, key=str)[:10]}",
    )
    return documents[record["id"]]


def _alias(snapshots: Snapshots, environment_id: object, ids: tuple[str, ...]) -> str:
    environments = snapshots.profile.project.environments
    for alias, number in environments.items():
        if number == environment_id:
            return alias
    raise violation(
        ids,
        "a configuration record names an environment it was not created in",
        f"environmentId one of {sorted(environments.values())} (the environment_id it was "
        "created with, spec 2.1)",
        f"environmentId {environment_id!r}",
    )


# ------------------------------------------------------------------ RFC 6902 results


@pytest.mark.parametrize(
    ("rid", "document", "operations"),
    [pytest.param(r, d, o, id=n, marks=requirement(r)) for r, n, d, o in APPLICABLE],
)
def test_patch_matches_the_rfc6902_oracle(
    configurations: Configurations, rid: str, document: Any, operations: list[dict[str, Any]]
) -> None:
    ids = (rid,)
    record = configurations.create_ok("patch", document, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_2xx(reply, ids, "an applicable patch was refused")
    expected = oracle(document, operations)
    got = content_of(reply, ids)
    expect(got == expected, ids, "patch result differs from RFC 6902", repr(expected), repr(got))


KEY = st.sampled_from(["a", "b", "c", "x/y", "t~u", "ünï", ""])
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
DOCUMENT = st.recursive(
    LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEY, inner, max_size=3)),
    max_leaves=8,
).filter(lambda d: isinstance(d, dict))


def _pointer(path: list[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _members(value: Any, path: list[Any]) -> list[list[Any]]:
    found = []
    if isinstance(value, dict):
        for key, child in value.items():
            found.append([*path, key])
            found.extend(_members(child, [*path, key]))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.append([*path, index])
            found.extend(_members(child, [*path, index]))
    return found


def _containers(value: Any, path: list[Any]) -> list[list[Any]]:
    found = [path] if isinstance(value, dict) else []
    children = value.items() if isinstance(value, dict) else []
    for key, child in children:
        found.extend(_containers(child, [*path, key]))
    return found


@st.composite
def document_and_patch(draw: st.DrawFn) -> tuple[Any, list[dict[str, Any]]]:
    document = draw(DOCUMENT)
    current = copy.deepcopy(document)
    operations: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 4))):
        members = _members(current, [])
        kind = draw(st.sampled_from(["add", "remove", "replace"] if members else ["add"]))
        if kind == "add":
            parent = draw(st.sampled_from(_containers(current, [])))
            op = {"op": "add", "path": _pointer([*parent, draw(KEY)]), "value": draw(LEAF)}
        elif kind == "remove":
            op = {"op": "remove", "path": _pointer(draw(st.sampled_from(members)))}
        else:
            target = draw(st.sampled_from(members))
            op = {"op": "replace", "path": _pointer(target), "value": draw(LEAF)}
        current = oracle(current, [op])
        operations.append(op)
    return document, operations


@requirement("CFG-PATCH-OPS-ADD-REMOVE-REPLACE")
def test_generated_patches_match_the_oracle(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-OPS-ADD-REMOVE-REPLACE",)

    @settings(
        max_examples=6,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(document_and_patch())
    def check(case: tuple[Any, list[dict[str, Any]]]) -> None:
        document, operations = case
        record = configurations.create_ok("generated", document, ids=ids)
        reply = configurations.patch(record["id"], operations)
        expect_2xx(reply, ids, "an applicable generated patch was refused")
        expected = oracle(document, operations)
        got = content_of(reply, ids)
        expect(
            got == expected,
            ids,
            f"generated patch {operations!r} on {document!r} differs from RFC 6902",
            repr(expected),
            repr(got),
            reply,
        )

    check()


# ------------------------------------------------------------------ record and hashes


@requirement("CFG-PATCH-RECORD-SHAPE")
def test_patch_answers_a_full_record(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-RECORD-SHAPE",)
    record = configurations.create_ok("patch-shape", {"a": 1}, ids=ids)
    reply = configurations.patch(record["id"], [{"op": "add", "path": "/b", "value": 2}])
    expect_2xx(reply, ids, "patch was refused")
    body = json_object(reply, ids)
    expect_shape("record", body, ids, "patch answered a partial record", reply)
    expect(
        body.get("id") == record["id"],
        ids,
        "patch answered another configuration",
        repr(record["id"]),
        repr(body.get("id")),
        reply,
    )


@requirement("CFG-PATCH-EMPTY-BODY", "CFG-CONTENT-HASH-STABLE")
def test_empty_patch_is_a_no_op(configurations: Configurations) -> None:
    record = configurations.create_ok("empty", {"z": 1, "a": [1, 2]})
    reply = configurations.patch(record["id"], body={})
    expect_2xx(reply, ("CFG-PATCH-EMPTY-BODY",), "an empty patch body was refused")
    body = json_object(reply, ("CFG-PATCH-EMPTY-BODY",))
    with IndependentChecks() as independent:
        independent.check(
            body.get("configuration") == record["configuration"],
            ("CFG-PATCH-EMPTY-BODY",),
            "an empty patch changed the content",
            repr(record["configuration"]),
            repr(body.get("configuration")),
            reply,
        )
        independent.check(
            body.get("contentHash") == record.get("contentHash"),
            ("CFG-CONTENT-HASH-STABLE",),
            "contentHash moved without a content change",
            repr(record.get("contentHash")),
            repr(body.get("contentHash")),
            reply,
        )


@requirement("CFG-CONTENT-HASH-TRACKS-CONTENT")
def test_content_hash_moves_with_content(configurations: Configurations) -> None:
    ids = ("CFG-CONTENT-HASH-TRACKS-CONTENT",)
    record = configurations.create_ok("hash", {"level": 1}, ids=ids)
    before = record.get("contentHash")
    expect(
        isinstance(before, str) and before != "",
        ids,
        "contentHash is not a non-empty string",
        "a non-empty string",
        repr(before),
    )
    after = configurations.patch_ok(
        record["id"], [{"op": "replace", "path": "/level", "value": 2}], ids=ids
    )
    expect(
        after.get("contentHash") != before,
        ids,
        "contentHash did not move with the content",
        f"a hash other than {before!r}",
        repr(after.get("contentHash")),
    )


@requirement("CFG-RECORD-UPDATED-AT-ADVANCES")
def test_patch_moves_updated_at_only(configurations: Configurations) -> None:
    ids = ("CFG-RECORD-UPDATED-AT-ADVANCES",)
    record = configurations.create_ok("updated", {"v": 1}, ids=ids)
    after = configurations.patch_ok(
        record["id"], [{"op": "replace", "path": "/v", "value": 2}], ids=ids
    )
    expect(
        after.get("createdAt") == record.get("createdAt"),
        ids,
        "patch changed createdAt",
        repr(record.get("createdAt")),
        repr(after.get("createdAt")),
    )
    expect(
        _time(after.get("updatedAt"), ids) >= _time(record.get("updatedAt"), ids),
        ids,
        "updatedAt went backwards",
        f"not earlier than {record.get('updatedAt')!r}",
        repr(after.get("updatedAt")),
    )


def _time(value: Any, ids: tuple[str, ...]) -> datetime:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise violation(
            ids,
            "a record's timestamp is not an ISO 8601 date-time",
            "updatedAt as an ISO 8601 date-time (spec 2.1)",
            repr(value),
        ) from None


@requirement("CFG-PATCH-PERSISTS")
def test_patch_result_is_stored(configurations: Configurations, snapshots: Snapshots) -> None:
    """Two patches in a row, then a read: it must hold both (only add/replace, no `test`)."""
    ids = ("CFG-PATCH-PERSISTS",)
    record = configurations.create_ok("persist", {"step": 0}, ids=ids)
    first = configurations.patch_ok(
        record["id"], [{"op": "replace", "path": "/step", "value": 1}], ids=ids
    )
    following = [{"op": "add", "path": "/next", "value": 2}]
    second = configurations.patch(record["id"], following)
    expect_2xx(second, ids, "a patch on top of the previous result was refused")
    expected = oracle(first["configuration"], following)
    served = stored(configurations, snapshots, record, ids)
    expect(
        served == expected,
        ids,
        "the SDK endpoints serve other content than the last patch returned",
        repr(expected),
        repr(served),
    )


# ------------------------------------------------------------------ key order


@requirement("CFG-PATCH-KEY-ORDER-KEPT")
def test_patch_keeps_member_order(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-KEY-ORDER-KEPT",)
    document = {"zeta": 1, "alpha": 2, "mid": {"y": 1, "b": 2}, "beta": 3}
    operations = [
        {"op": "replace", "path": "/alpha", "value": 20},
        {"op": "add", "path": "/gamma", "value": 4},
        {"op": "remove", "path": "/zeta"},
        {"op": "add", "path": "/mid/a", "value": 0},
    ]
    record = configurations.create_ok("order", document, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_2xx(reply, ids, "patch was refused")
    expected = ["alpha", "mid", "beta", "gamma"], ["y", "b", "a"]
    got = content_of(reply, ids)
    received = (list(got), list(got.get("mid", {}))) if isinstance(got, dict) else got
    expect(
        received == expected,
        ids,
        "member order after the patch is wrong",
        repr(expected),
        repr(received),
        reply,
    )


SIDECAR_DOCUMENT = {"a": 1, "b": {"x": 1, "y": 2, "z": 3}, "c": [1, 2], "d": None}


@requirement("CFG-PATCH-KEY-ORDER-SIDECAR")
@pytest.mark.parametrize("with_operations", [False, True], ids=["alone", "with-operations"])
def test_sidecar_reorders_members(configurations: Configurations, with_operations: bool) -> None:
    ids = ("CFG-PATCH-KEY-ORDER-SIDECAR",)
    record = configurations.create_ok("sidecar", SIDECAR_DOCUMENT, ids=ids)
    operations = [{"op": "replace", "path": "/a", "value": 10}] if with_operations else []
    sidecar = {"": ["d", "c", "b", "a"], "/b": ["z", "x", "y"]}
    reply = configurations.patch(record["id"], operations, key_order=sidecar)
    expect_2xx(reply, ids, "a key-order sidecar was refused")
    got = content_of(reply, ids)
    expected = oracle(SIDECAR_DOCUMENT, operations)
    with IndependentChecks() as independent:
        independent.check(
            got == expected, ids, "the sidecar changed values", repr(expected), repr(got)
        )
        order_got = (list(got), list(got.get("b", {}))) if isinstance(got, dict) else None
        independent.check(
            order_got == (["d", "c", "b", "a"], ["z", "x", "y"]),
            ids,
            "members are not in the sidecar's order",
            "['d', 'c', 'b', 'a'] and b: ['z', 'x', 'y']",
            repr(order_got),
            reply,
        )


@requirement("CFG-PATCH-SIDECAR-INAPPLICABLE-409")
@pytest.mark.parametrize("pointer", ["/c", "/missing", "/a"], ids=["array", "missing", "number"])
def test_inapplicable_sidecar_conflicts(
    configurations: Configurations, snapshots: Snapshots, pointer: str
) -> None:
    ids = ("CFG-PATCH-SIDECAR-INAPPLICABLE-409",)
    record = configurations.create_ok("sidecar-409", SIDECAR_DOCUMENT, ids=ids)
    reply = configurations.patch(
        record["id"],
        [{"op": "replace", "path": "/a", "value": 2}],
        key_order={pointer: ["x"]},
    )
    expect_refused(reply, ids, "an inapplicable sidecar was not a conflict", (409,))
    served = stored(configurations, snapshots, record, ids)
    expect(
        served == SIDECAR_DOCUMENT and order(served) == order(SIDECAR_DOCUMENT),
        ids,
        "a refused sidecar patch changed the content",
        repr(SIDECAR_DOCUMENT),
        repr(served),
    )


# ------------------------------------------------------------------ conflicts


@requirement("CFG-PATCH-409-STALE-BASE")
def test_stale_base_conflicts(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-409-STALE-BASE",)
    record = configurations.create_ok("stale", {"n": 0}, ids=ids)
    stale = record.get("contentHash")
    # Set-up: move the content on with a patch naming no baseHash, so this scenario does not
    # depend on a current base being accepted (CFG-PATCH-CURRENT-BASE-ACCEPTED).
    moved = configurations.patch(record["id"], [{"op": "replace", "path": "/n", "value": 1}])
    expect_2xx(moved, ids, "a patch without baseHash (every field optional, spec 2.3) was refused")
    reply = configurations.patch(
        record["id"], [{"op": "replace", "path": "/n", "value": 2}], base_hash=stale
    )
    expect_refused(reply, ids, "a patch from a stale base was not a conflict", (409,))


@requirement("CFG-PATCH-CURRENT-BASE-ACCEPTED")
def test_current_base_is_accepted(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-CURRENT-BASE-ACCEPTED",)
    record = configurations.create_ok("current-base", {"n": 0}, ids=ids)
    first = configurations.patch(
        record["id"], [{"op": "replace", "path": "/n", "value": 1}], base_hash=record["contentHash"]
    )
    expect_2xx(first, ids, "a patch from the current base was refused")
    current = json_object(first, ids).get("contentHash")
    second = configurations.patch(
        record["id"], [{"op": "replace", "path": "/n", "value": 2}], base_hash=current
    )
    expect_2xx(second, ids, "a patch from the new current base was refused")


@requirement("CFG-PATCH-409-INAPPLICABLE")
@pytest.mark.parametrize("operations", [pytest.param(o, id=n) for n, o in INAPPLICABLE])
def test_inapplicable_patch_conflicts(
    configurations: Configurations, operations: list[dict[str, Any]]
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
        base_hash=record.get("contentHash"),
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
            served == expected, ids, "a 409 changed the content", repr(expected), repr(served)
        )
        independent.check(
            hash_after == hash_before,
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
        served == BASE,
        ids,
        "a failed patch kept some of its operations",
        repr(BASE),
        repr(served),
        reply,
    )


@requirement("CFG-PATCH-CONCURRENT-ONE-WINS")
def test_concurrent_writers_one_wins(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("CFG-PATCH-CONCURRENT-ONE-WINS",)
    writers = 4
    record = configurations.create_ok("race", {"winner": None}, ids=ids)
    base = record["contentHash"]
    gate = threading.Barrier(writers)
    replies: list[Reply | None] = [None] * writers

    def write(index: int) -> None:
        gate.wait()
        replies[index] = configurations.patch(
            record["id"], [{"op": "replace", "path": "/winner", "value": index}], base_hash=base
        )

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
    expect(
        served == {"winner": winners[0]},
        ids,
        "the stored content is not the winner's result",
        repr({"winner": winners[0]}),
        repr(served),
    )


@requirement("CFG-PATCH-MALFORMED-REFUSED")
@pytest.mark.parametrize("operations", [pytest.param(o, id=n) for n, o in MALFORMED])
def test_malformed_patch_is_refused(
    configurations: Configurations, snapshots: Snapshots, operations: Any
) -> None:
    ids = ("CFG-PATCH-MALFORMED-REFUSED",)
    record = configurations.create_ok("malformed", BASE, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_refused(reply, ids, "a malformed patch was not refused")
    served = stored(configurations, snapshots, record, ids)
    expect(served == BASE, ids, "a malformed patch changed content", repr(BASE), repr(served))


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
        entry_of(after, victim["id"]) == victim,
        ids,
        "the other project's configuration changed",
        repr(victim),
        repr(entry_of(after, victim["id"])),
    )
