"""Scenarios: the edge rules of RFC 6902 and RFC 6901, each judged over its space, not one example.

- pointer tokens: every escape combination of RFC 6901 section 4 (``~0``, ``~1``, ``~01``,
  ``~10``, ``/``, ``~`` alone, empty, ``-``, digits) as a member name, written by add, remove
  and replace;
- ``copy`` and ``move`` followed, in the same patch, by a change on either side of the copy (RFC
  6902 4.5: a copy is a new value, not a second name for the source), for objects and arrays;
- ``test``: every ordered pair of a set of JSON values of every type (RFC 6902 4.6: equal only
  with the same JSON type; numbers by value, objects without member order), and every value
  tested at a path that names nothing;
- member order after each write that lands on an existing member (add, replace, copy and move
  onto it) at each position, a new member, a removal (the catalogue's CFG-PATCH-KEY-ORDER-KEPT);
- sidecar pointers whose tokens need escaping, in the declared path syntax.

The expectations come from the ``jsonpatch`` oracle (``patching.oracle``), whose ``test``
compares JSON types strictly; documents are compared as JSON text with their types kept
(``json_equality.same_json``).
"""

from __future__ import annotations

import pytest

from conformance.checks import IndependentChecks, expect
from conformance.drivers import document_paths
from conformance.drivers.management import Configurations
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import same_json
from conformance.oracles.patch_vectors import canonical
from conformance.stages.scenarios.patching import content_of, expect_2xx, oracle

requirement = pytest.mark.requirement

TOKENS = ["~", "/", "~0", "~1", "~01", "~10", "/0", "~/", "/~", "a/b", "m~n", "", " ", "-", "0"]


def pointer(*tokens: str | int) -> str:
    """The RFC 6901 pointer of ``tokens`` (``~`` escaped before ``/``)."""
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _applies(
    configurations: Configurations,
    ids: tuple[str, ...],
    document: JsonValue,
    operations: list[JsonObject],
    title: str,
) -> None:
    record = configurations.create_ok("edge", document, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_2xx(reply, ids, f"{title}: an applicable patch was refused")
    expected, got = oracle(document, operations), content_of(reply, ids)
    expect(
        same_json(expected, got),
        ids,
        f"{title}: the result differs from RFC 6902 ({canonical(operations)[:300]})",
        canonical(expected)[:400],
        canonical(got)[:400],
        reply,
    )


# ------------------------------------------------------------------ RFC 6901 tokens


@requirement("CFG-PATCH-OPS-ADD-REMOVE-REPLACE")
def test_every_escaped_token_names_its_member(configurations: Configurations) -> None:
    document: JsonObject = {"tokens": {t: i for i, t in enumerate(TOKENS)}, "added": {}}
    operations: list[JsonObject] = []
    for index, token in enumerate(TOKENS):
        operations.append({"op": "add", "path": pointer("added", token), "value": index})
        if index % 3 == 0:
            operations.append({"op": "remove", "path": pointer("tokens", token)})
        else:
            operations.append({"op": "replace", "path": pointer("tokens", token), "value": -index})
    _applies(configurations, ("CFG-PATCH-OPS-ADD-REMOVE-REPLACE",), document, operations, "tokens")


# ------------------------------------------------------------------ copy and move, then a change

SOURCES: dict[str, JsonValue] = {"object": {"k": 1, "deep": {"x": 1}}, "array": [1, {"x": 1}]}
# A change under a copied or moved value, by the value's kind: add and replace of object members
# only, so that a defect of another rule (array indexes, remove) is not filed under move and copy.
CHANGES = {
    "object": [("add", "/new", 2), ("replace", "/deep/x", 9)],
    "array": [("add", "/1/new", 2), ("replace", "/1/x", 9)],
}


def _copy_cases() -> list[object]:
    cases: list[object] = []
    for op in ("copy", "move"):
        for kind in SOURCES:
            sides = ("target", "source") if op == "copy" else ("target",)
            for side in sides:
                for change, suffix, value in CHANGES[kind]:
                    name = f"{op}-{kind}-then-{change}-in-{side}"
                    cases.append(pytest.param(op, kind, side, change, suffix, value, id=name))
    return cases


@requirement("CFG-PATCH-OPS-MOVE-COPY")
@pytest.mark.parametrize(("op", "kind", "side", "change", "suffix", "value"), _copy_cases())
def test_copy_and_move_make_a_new_value(
    configurations: Configurations,
    op: str,
    kind: str,
    side: str,
    change: str,
    suffix: str,
    value: JsonValue,
) -> None:
    document: JsonObject = {"src": SOURCES[kind], "other": 0}
    at = "/src" if side == "source" else "/dst"
    edit: JsonObject = {"op": change, "path": at + suffix, "value": value}
    operations: list[JsonObject] = [{"op": op, "from": "/src", "path": "/dst"}, edit]
    _applies(configurations, ("CFG-PATCH-OPS-MOVE-COPY",), document, operations, f"{op} {kind}")


# ------------------------------------------------------------------ test: JSON types

VALUES: list[JsonValue] = [None, True, False, 0, 1, "", "1", [], {}]
SAME_VALUE: list[tuple[JsonValue, JsonValue]] = [  # equal in RFC 6902 4.6, written differently
    (1, 1.0),
    ({"a": 1, "b": [True]}, {"b": [True], "a": 1}),
]
MISSING = ["/stored/absent", "/absent/deeper", "/list/9", "/list/-"]


@requirement("CFG-PATCH-OPS-TEST")
def test_test_passes_on_every_equal_value(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-OPS-TEST",)
    stored = {f"k{i}": v for i, v in enumerate(VALUES)}
    pairs = {f"p{i}": a for i, (a, _) in enumerate(SAME_VALUE)}
    document: JsonObject = {"stored": stored, "pairs": pairs, "list": list(VALUES)}
    operations: list[JsonObject] = [
        *({"op": "test", "path": f"/stored/k{i}", "value": v} for i, v in enumerate(VALUES)),
        *({"op": "test", "path": f"/list/{i}", "value": v} for i, v in enumerate(VALUES)),
        *(
            {"op": "test", "path": f"/pairs/p{i}", "value": b}
            for i, (_, b) in enumerate(SAME_VALUE)
        ),
        {"op": "replace", "path": "/list/0", "value": "after the tests"},
    ]
    _applies(configurations, ids, document, operations, "tests of equal values")


def _failing_tests() -> list[tuple[str, str, JsonValue]]:
    """(what the path holds, path, tested value): every unequal ordered pair of ``VALUES``, each
    value at one path that names nothing (in turn), and null at every such path."""
    unequal = [
        (canonical(held), f"/stored/k{i}", tested)
        for i, held in enumerate(VALUES)
        for tested in VALUES
        if not same_json(held, tested)
    ]
    missing = [("nothing", MISSING[i % len(MISSING)], v) for i, v in enumerate(VALUES)]
    return unequal + missing + [("nothing", path, None) for path in MISSING]


@requirement("CFG-PATCH-409-INAPPLICABLE")
def test_test_fails_on_every_other_type_or_value(configurations: Configurations) -> None:
    """One configuration holds every value; each failing test is one patch (the test, then a
    write) that must answer 409."""
    ids = ("CFG-PATCH-409-INAPPLICABLE",)
    document: JsonObject = {"stored": {f"k{i}": v for i, v in enumerate(VALUES)}, "list": [0]}
    record = configurations.create_ok("test-types", document, ids=ids)
    with IndependentChecks() as independent:
        for held, path, tested in _failing_tests():
            operations: list[JsonObject] = [
                {"op": "test", "path": path, "value": tested},
                {"op": "add", "path": "/written", "value": True},
            ]
            reply = configurations.patch(record["id"], operations)
            independent.check(
                reply.status == 409,
                ids,
                f"a test of {canonical(tested)} at {path} (holding {held}) did not fail the patch",
                "HTTP 409 (RFC 6902 4.6: equal only with the same JSON type and value; spec "
                "4.1 rule 3)",
                reply.describe(),
                reply,
            )
            if 200 <= reply.status < 300:
                break  # the content moved on; the first such answer is the evidence


# ------------------------------------------------------------------ member order

ORDERED: JsonObject = {"p": 1, "q": 2, "r": 3, "s": 4, "nest": {"p": 1, "q": 2, "r": 3}}


def _order_cases() -> list[object]:
    cases: list[object] = []
    for where, positions in (("", ("p", "r", "s")), ("/nest", ("p", "q", "r"))):
        for position in positions:
            at = f"{where}/{position}"
            cases += [
                pytest.param([{"op": "add", "path": at, "value": 0}], id=f"add-onto{at}"),
                pytest.param([{"op": "replace", "path": at, "value": 0}], id=f"replace{at}"),
                pytest.param([{"op": "copy", "from": "/s", "path": at}], id=f"copy-onto{at}"),
            ]
        cases += [
            pytest.param(
                [{"op": "move", "from": "/s", "path": f"{where}/q"}], id=f"move-onto{where}/q"
            ),
            pytest.param([{"op": "add", "path": f"{where}/new", "value": 0}], id=f"add-new{where}"),
            pytest.param([{"op": "remove", "path": f"{where}/q"}], id=f"remove{where}/q"),
        ]
    return cases


def shared_order(expected: object, received: object) -> tuple[object, object]:
    """The member order of every object both values hold at the same place, restricted to the
    members both have: which members there are is the other rules' to judge (a ``move`` left as
    a copy is CFG-PATCH-OPS-MOVE-COPY's), their order is this rule's."""
    if isinstance(expected, dict) and isinstance(received, dict):
        mine = [k for k in expected if k in received]
        theirs = [k for k in received if k in expected]
        inner = [shared_order(expected[k], received[k]) for k in mine]
        return [mine, [e for e, _ in inner]], [theirs, [r for _, r in inner]]
    if isinstance(expected, list) and isinstance(received, list):
        pairs = [shared_order(e, r) for e, r in zip(expected, received, strict=False)]
        return [e for e, _ in pairs], [r for _, r in pairs]
    return 0, 0


@requirement("CFG-PATCH-KEY-ORDER-KEPT")
@pytest.mark.parametrize("operations", _order_cases())
def test_writes_keep_member_positions(
    configurations: Configurations, operations: list[JsonObject]
) -> None:
    ids = ("CFG-PATCH-KEY-ORDER-KEPT",)
    record = configurations.create_ok("order", ORDERED, ids=ids)
    reply = configurations.patch(record["id"], operations)
    expect_2xx(reply, ids, "a patch was refused")
    expected, got = shared_order(oracle(ORDERED, operations), content_of(reply, ids))
    expect(
        same_json(expected, got, ordered=True),
        ids,
        f"member order after {canonical(operations)} is not kept (a written existing member "
        "keeps its place, a new one goes last)",
        canonical(expected, ordered=True),
        canonical(got, ordered=True),
        reply,
    )


# ------------------------------------------------------------------ sidecar pointers


@requirement("CFG-PATCH-KEY-ORDER-SIDECAR")
def test_sidecar_pointers_unescape(configurations: Configurations) -> None:
    ids = ("CFG-PATCH-KEY-ORDER-SIDECAR",)
    syntax = configurations.profile.bodies.path_syntax
    tokens = [t for t in TOKENS if _spellable(pointer(t), syntax)]
    document: JsonObject = {t: {"x": 1, "y": 2, "z": 3} for t in tokens}
    sidecar = {pointer(t): ["z", "x", "y"] for t in tokens}
    sidecar[""] = list(reversed(tokens))
    record = configurations.create_ok("sidecar-tokens", document, ids=ids)
    reply = configurations.patch(record["id"], [], key_order=sidecar)
    expect_2xx(reply, ids, "a sidecar naming members whose pointers escape `~` or `/` was refused")
    expected = {t: {"z": 3, "x": 1, "y": 2} for t in reversed(tokens)}
    got = content_of(reply, ids)
    expect(
        same_json(expected, got, ordered=True),
        ids,
        f"members are not in the sidecar's order (sidecar {canonical(sidecar)[:300]})",
        canonical(expected, ordered=True)[:400],
        canonical(got, ordered=True)[:400],
        reply,
    )


def _spellable(text: str, syntax: str) -> bool:
    """A pointer the declared path syntax spells unambiguously (a dotted path has no escape:
    no dot in a key, no empty key, which would read as the root)."""
    try:
        spelled = document_paths.spelled(text, syntax)
    except ValueError:
        return False
    return spelled != ""
