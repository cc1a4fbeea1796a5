"""refserver.patching: RFC 6902 cases as data (description doubles as the failure message)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from refserver.patching import PatchConflict, PatchShapeError, apply, json_equal, parse_operations

# description, document, operations, expected document (in key order)
APPLIES: list[tuple[str, Any, list[dict[str, Any]], Any]] = [
    (
        "add a new member appends it",
        {"b": 1, "a": 2},
        [{"op": "add", "path": "/c", "value": 3}],
        {"b": 1, "a": 2, "c": 3},
    ),
    (
        "add to an existing member replaces in place",
        {"a": 1, "b": 2},
        [{"op": "add", "path": "/a", "value": 9}],
        {"a": 9, "b": 2},
    ),
    (
        "replace keeps position",
        {"x": 1, "y": 2, "z": 3},
        [{"op": "replace", "path": "/x", "value": 0}],
        {"x": 0, "y": 2, "z": 3},
    ),
    ("remove a member", {"a": 1, "b": 2}, [{"op": "remove", "path": "/a"}], {"b": 2}),
    (
        "insert into an array",
        {"l": [1, 3]},
        [{"op": "add", "path": "/l/1", "value": 2}],
        {"l": [1, 2, 3]},
    ),
    ("append with -", {"l": [1]}, [{"op": "add", "path": "/l/-", "value": 2}], {"l": [1, 2]}),
    ("remove from an array", [1, 2, 3], [{"op": "remove", "path": "/0"}], [2, 3]),
    ("replace the root", {"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    (
        "add at the root replaces the document",
        None,
        [{"op": "add", "path": "", "value": {"a": 1}}],
        {"a": 1},
    ),
    (
        "move appends at a new target",
        {"a": 1, "b": 2, "c": 3},
        [{"op": "move", "from": "/a", "path": "/d"}],
        {"b": 2, "c": 3, "d": 1},
    ),
    ("move to itself is a no-op", {"a": 1}, [{"op": "move", "from": "/a", "path": "/a"}], {"a": 1}),
    (
        "copy duplicates without aliasing",
        {"a": {"x": 1}},
        [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "add", "path": "/b/y", "value": 2}],
        {"a": {"x": 1}, "b": {"x": 1, "y": 2}},
    ),
    (
        "test passes with equal numbers",
        {"n": 1},
        [{"op": "test", "path": "/n", "value": 1.0}],
        {"n": 1},
    ),
    (
        "test compares objects regardless of order",
        {"o": {"a": 1, "b": 2}},
        [{"op": "test", "path": "/o", "value": {"b": 2, "a": 1}}],
        {"o": {"a": 1, "b": 2}},
    ),
    (
        "escaped pointer segments",
        {"a/b": 1, "m~n": 2},
        [{"op": "replace", "path": "/a~1b", "value": 3}, {"op": "remove", "path": "/m~0n"}],
        {"a/b": 3},
    ),
    ("empty-string member name", {"": 1}, [{"op": "replace", "path": "/", "value": 2}], {"": 2}),
]

# description, document, operations
CONFLICTS: list[tuple[str, Any, list[dict[str, Any]]]] = [
    ("failed test", {"a": 1}, [{"op": "test", "path": "/a", "value": 2}]),
    ("test: true is not 1", {"a": 1}, [{"op": "test", "path": "/a", "value": True}]),
    ("remove a missing member", {"a": 1}, [{"op": "remove", "path": "/b"}]),
    ("replace a missing member", {"a": 1}, [{"op": "replace", "path": "/b", "value": 1}]),
    ("add under a missing parent", {}, [{"op": "add", "path": "/x/y", "value": 1}]),
    ("index out of range", {"l": [1]}, [{"op": "add", "path": "/l/5", "value": 1}]),
    ("leading zero index", {"l": [1, 2]}, [{"op": "replace", "path": "/l/01", "value": 1}]),
    ("non-numeric index", {"l": [1]}, [{"op": "remove", "path": "/l/x"}]),
    ("- is not an index for remove", {"l": [1]}, [{"op": "remove", "path": "/l/-"}]),
    ("move into its own child", {"a": {"b": {}}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}]),
    ("copy from a missing path", {"a": 1}, [{"op": "copy", "from": "/x", "path": "/b"}]),
    ("descend into a scalar", {"a": 1}, [{"op": "add", "path": "/a/b", "value": 1}]),
    ("remove the root", {"a": 1}, [{"op": "remove", "path": ""}]),
    (
        "second operation fails after the first applied",
        {"a": 1},
        [{"op": "add", "path": "/b", "value": 2}, {"op": "test", "path": "/a", "value": 5}],
    ),
]

# description, raw operations
MALFORMED: list[tuple[str, Any]] = [
    ("not an array", {"op": "add"}),
    ("operation not an object", [1]),
    ("unknown op", [{"op": "merge", "path": "/a"}]),
    ("missing op", [{"path": "/a"}]),
    ("missing path", [{"op": "remove"}]),
    ("missing value", [{"op": "add", "path": "/a"}]),
    ("missing from", [{"op": "move", "path": "/a"}]),
    ("path not starting with /", [{"op": "remove", "path": "a"}]),
    ("path not a string", [{"op": "remove", "path": 5}]),
    ("bad escape", [{"op": "remove", "path": "/a~2"}]),
]


@pytest.mark.parametrize(("description", "document", "operations", "expected"), APPLIES)
def test_applies(description: str, document: Any, operations: list[Any], expected: Any) -> None:
    result = apply(document, parse_operations(operations))
    assert json.dumps(result) == json.dumps(expected), description


@pytest.mark.parametrize(("description", "document", "operations"), CONFLICTS)
def test_conflicts_leave_the_document_untouched(
    description: str, document: Any, operations: list[Any]
) -> None:
    before = json.dumps(document)
    with pytest.raises(PatchConflict):
        apply(document, parse_operations(operations))
    assert json.dumps(document) == before, description


@pytest.mark.parametrize(("description", "raw"), MALFORMED)
def test_malformed(description: str, raw: Any) -> None:
    with pytest.raises(PatchShapeError):
        parse_operations(raw)


def test_conflict_names_the_operation() -> None:
    ops = parse_operations(
        [{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/x"}]
    )
    with pytest.raises(PatchConflict, match="operation 1"):
        apply({}, ops)


def test_json_equal_distinguishes_types() -> None:
    assert json_equal([1, {"a": None}], [1.0, {"a": None}])
    assert not json_equal(0, False)
    assert not json_equal("1", 1)
    assert not json_equal([1], [1, 2])
    assert not json_equal({"a": 1}, {"b": 1})
