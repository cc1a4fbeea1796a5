"""Scenarios: what a configuration patch (RFC 6902, spec 2.3, 4.1) makes of a document and its
record, against the jsonpatch oracle: results, hashes, timestamps, key order."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.checks import IndependentChecks, expect, json_object, violation
from conformance.checks.shapes import expect_shape
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import json_difference, json_text, same_json
from conformance.stages.scenarios.patching import (
    BASE,
    content_of,
    expect_2xx,
    expect_refused,
    oracle,
    order,
    stored,
)

requirement = pytest.mark.requirement

APPLICABLE: list[tuple[str, str, JsonValue, list[JsonObject]]] = [
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

# ------------------------------------------------------------------ RFC 6902 results


@pytest.mark.parametrize(
    ("rid", "document", "operations"),
    [pytest.param(r, d, o, id=n, marks=requirement(r)) for r, n, d, o in APPLICABLE],
)
def test_patch_matches_the_rfc6902_oracle(
    configurations: Configurations, rid: str, document: JsonValue, operations: list[JsonObject]
) -> None:
    ids = (rid,)
    record = configurations.create_ok("patch", document, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_2xx(reply, ids, "an applicable patch was refused")
    expected = oracle(document, operations)
    got = content_of(reply, ids)
    difference = json_difference(expected, got)
    expect(
        difference is None,
        ids,
        "patch result differs from RFC 6902",
        json_text(expected, 300),
        f"{json_text(got, 300)}; {difference}",
    )


KEY = st.sampled_from(["a", "b", "c", "x/y", "t~u", "ünï", ""])
LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([1.0, 0.0, -2.5, 1e3]),  # numbers written with a fraction stay fractions
    st.text(max_size=3),
)
DOCUMENT = st.recursive(
    LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEY, inner, max_size=3)),
    max_leaves=8,
).filter(lambda d: isinstance(d, dict))


def _pointer(path: Sequence[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _members(value: JsonValue, path: list[str | int]) -> list[list[str | int]]:
    found: list[list[str | int]] = []
    if isinstance(value, dict):
        for key, child in value.items():
            found.append([*path, key])
            found.extend(_members(child, [*path, key]))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.append([*path, index])
            found.extend(_members(child, [*path, index]))
    return found


def _containers(value: JsonValue, path: list[str | int]) -> list[list[str | int]]:
    found = [path] if isinstance(value, dict) else []
    children = value.items() if isinstance(value, dict) else ()
    for key, child in children:
        found.extend(_containers(child, [*path, key]))
    return found


@st.composite
def document_and_patch(draw: st.DrawFn) -> tuple[JsonValue, list[JsonObject]]:
    document: JsonValue = draw(DOCUMENT)
    current = copy.deepcopy(document)
    operations: list[JsonObject] = []
    for _ in range(draw(st.integers(1, 4))):
        members = _members(current, [])
        kind = draw(st.sampled_from(["add", "remove", "replace"] if members else ["add"]))
        op: JsonObject
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
    def check(case: tuple[JsonValue, list[JsonObject]]) -> None:
        document, operations = case
        record = configurations.create_ok("generated", document, ids=ids)
        reply = configurations.patch(record["id"], operations)
        expect_2xx(reply, ids, "an applicable generated patch was refused")
        expected = oracle(document, operations)
        got = content_of(reply, ids)
        difference = json_difference(expected, got)
        expect(
            difference is None,
            ids,
            f"generated patch {json_text(operations, 300)} on {json_text(document, 300)} "
            "differs from RFC 6902",
            json_text(expected, 300),
            f"{json_text(got, 300)}; {difference}",
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
        same_json(body.get("id"), record["id"]),
        ids,
        "patch answered another configuration",
        repr(record["id"]),
        repr(body.get("id")),
        reply,
    )


EMPTY_PATCHED = ({"z": 1, "a": [1, 2]}, None)  # the documents an empty patch is sent over


@requirement("CFG-PATCH-EMPTY-BODY", "CFG-CONTENT-HASH-STABLE")
@pytest.mark.parametrize("document", EMPTY_PATCHED, ids=["object", "null"])
def test_empty_patch_is_a_no_op(configurations: Configurations, document: object) -> None:
    """Over an object and over a null document (spec 2.1: the content may be null)."""
    record = configurations.create_ok("empty", document)
    reply = configurations.patch(record["id"], body={})
    expect_2xx(reply, ("CFG-PATCH-EMPTY-BODY",), "an empty patch body was refused")
    body = json_object(reply, ("CFG-PATCH-EMPTY-BODY",))
    with IndependentChecks() as independent:
        independent.check(
            same_json(body.get("configuration"), record["configuration"]),
            ("CFG-PATCH-EMPTY-BODY",),
            "an empty patch changed the content",
            repr(record["configuration"]),
            repr(body.get("configuration")),
            reply,
        )
        independent.check(
            same_json(body.get("contentHash"), record.get("contentHash")),
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
        not same_json(after.get("contentHash"), before),
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
        same_json(after.get("createdAt"), record.get("createdAt")),
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


def _time(value: object, ids: tuple[str, ...]) -> datetime:
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
    # the empty structures too: an object is never an array (RFC 8259), whatever reads it back
    record = configurations.create_ok("persist", {"step": 0, "bag": {}, "log": []}, ids=ids)
    first = configurations.patch_ok(
        record["id"], [{"op": "replace", "path": "/step", "value": 1}], ids=ids
    )
    following = [{"op": "add", "path": "/next", "value": 2}]
    second = configurations.patch(record["id"], following)
    expect_2xx(second, ids, "a patch on top of the previous result was refused")
    expected = oracle(first["configuration"], following)
    served = stored(configurations, snapshots, record, ids)
    expect(
        same_json(served, expected),
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
    mid = got.get("mid", {}) if isinstance(got, dict) else None
    received = (
        (list(got), list(mid) if isinstance(mid, dict) else mid) if isinstance(got, dict) else got
    )
    expect(
        same_json(received, expected),
        ids,
        "member order after the patch is wrong",
        repr(expected),
        repr(received),
        reply,
    )


SIDECAR_DOCUMENT: JsonObject = {"a": 1, "b": {"x": 1, "y": 2, "z": 3}, "c": [1, 2], "d": None}


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
            same_json(got, expected), ids, "the sidecar changed values", repr(expected), repr(got)
        )
        inner = got.get("b", {}) if isinstance(got, dict) else None
        order_got = (
            (list(got), list(inner) if isinstance(inner, dict) else inner)
            if isinstance(got, dict)
            else None
        )
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
        same_json(served, SIDECAR_DOCUMENT) and order(served) == order(SIDECAR_DOCUMENT),
        ids,
        "a refused sidecar patch changed the content",
        repr(SIDECAR_DOCUMENT),
        repr(served),
    )
