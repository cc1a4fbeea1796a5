"""Unit tests of refserver.changeset: shape validation and merging into a base document."""

from __future__ import annotations

import json
from typing import Any

import pytest

from refserver.changeset import ChangesetError, merge, validate

BASE: dict[str, Any] = {"economy": {"coins": 100, "gems": 5}, "levels": [1, 2], "motd": "hi"}

# (description, changeset, expected result)
MERGES: list[tuple[str, list[dict[str, Any]], Any]] = [
    (
        "set replaces in place",
        [{"op": "set", "path": ["economy", "coins"], "value": 250}],
        {"economy": {"coins": 250, "gems": 5}, "levels": [1, 2], "motd": "hi"},
    ),
    (
        "set creates missing intermediate objects, appended last",
        [{"op": "set", "path": ["store", "sale", "pct"], "value": 20}],
        {**BASE, "store": {"sale": {"pct": 20}}},
    ),
    (
        "set on an array index replaces the element",
        [{"op": "set", "path": ["levels", "0"], "value": 9}],
        {**BASE, "levels": [9, 2]},
    ),
    (
        "set at the array length appends",
        [{"op": "set", "path": ["levels", "2"], "value": 3}],
        {**BASE, "levels": [1, 2, 3]},
    ),
    (
        "add to an array appends",
        [{"op": "add", "path": ["levels"], "value": 7}],
        {**BASE, "levels": [1, 2, 7]},
    ),
    (
        "add of an absent key creates it",
        [{"op": "add", "path": ["economy", "tickets"], "value": 1}],
        {**BASE, "economy": {"coins": 100, "gems": 5, "tickets": 1}},
    ),
    (
        "add never overwrites a scalar",
        [{"op": "add", "path": ["motd"], "value": "bye"}],
        BASE,
    ),
    (
        "delete removes a member",
        [{"op": "delete", "path": ["economy", "gems"]}],
        {**BASE, "economy": {"coins": 100}},
    ),
    (
        "delete of an absent path is a no-op",
        [{"op": "delete", "path": ["nothing", "here"]}],
        BASE,
    ),
    (
        "delete of an array element",
        [{"op": "delete", "path": ["levels", "0"]}],
        {**BASE, "levels": [2]},
    ),
    (
        "a non-index segment in an array is skipped",
        [
            {"op": "set", "path": ["levels", "01"], "value": 9},
            {"op": "set", "path": ["levels", "x"], "value": 9},
        ],
        BASE,
    ),
    (
        "delete ignores a value",
        [{"op": "delete", "path": ["motd"], "value": "ignored"}],
        {"economy": {"coins": 100, "gems": 5}, "levels": [1, 2]},
    ),
    (
        "an index beyond the array is skipped",
        [{"op": "set", "path": ["levels", "5"], "value": 1}],
        BASE,
    ),
    (
        "a key under a scalar is skipped",
        [{"op": "set", "path": ["motd", "x"], "value": 1}],
        BASE,
    ),
    (
        "operations apply in order",
        [
            {"op": "set", "path": ["a"], "value": {"b": 1}},
            {"op": "set", "path": ["a", "c"], "value": 2},
            {"op": "delete", "path": ["a", "b"]},
        ],
        {**BASE, "a": {"c": 2}},
    ),
]


@pytest.mark.parametrize(
    ("changeset", "expected"), [m[1:] for m in MERGES], ids=[m[0] for m in MERGES]
)
def test_merge(changeset: list[dict[str, Any]], expected: Any) -> None:
    snapshot = json.dumps(BASE)
    result = merge(BASE, validate(changeset))
    assert result == expected
    assert json.dumps(result) == json.dumps(expected)  # key order too
    assert json.dumps(BASE) == snapshot  # base untouched


def test_merge_into_null_base() -> None:
    assert merge(None, [{"op": "set", "path": ["x", "y"], "value": 1}]) == {"x": {"y": 1}}
    assert merge(None, [{"op": "delete", "path": ["x"]}]) is None


def test_values_are_copied() -> None:
    value = {"deep": [1]}
    result = merge({}, [{"op": "set", "path": ["k"], "value": value}])
    result["k"]["deep"].append(2)
    assert value == {"deep": [1]}


BAD: list[tuple[str, object]] = [
    ("not an array", {"op": "set"}),
    ("operation not an object", ["set"]),
    ("unknown op", [{"op": "replace", "path": ["a"], "value": 1}]),
    ("missing op", [{"path": ["a"], "value": 1}]),
    ("path not an array", [{"op": "set", "path": "/a", "value": 1}]),
    ("empty path", [{"op": "set", "path": [], "value": 1}]),
    ("integer segment", [{"op": "set", "path": ["a", 0], "value": 1}]),
    ("boolean segment", [{"op": "set", "path": [True], "value": 1}]),
    ("null segment", [{"op": "set", "path": [None], "value": 1}]),
    ("set without value", [{"op": "set", "path": ["a"]}]),
    ("add without value", [{"op": "add", "path": ["a"]}]),
]


@pytest.mark.parametrize("changeset", [b[1] for b in BAD], ids=[b[0] for b in BAD])
def test_validate_rejects(changeset: object) -> None:
    with pytest.raises(ChangesetError):
        validate(changeset)


def test_validate_accepts_null_values() -> None:
    assert validate([{"op": "set", "path": ["a"], "value": None}]) == [
        {"op": "set", "path": ["a"], "value": None}
    ]
