"""Unit tests of the suite's changeset oracle (set / add / delete on object paths)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.checks.experiment_changeset import merged

BASE: dict[str, Any] = {"economy": {"gold": 100, "tax": 0.1}, "title": "base"}

# (description, changeset, expected document)
CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any]]] = [
    (
        "set replaces",
        [{"op": "set", "path": ["economy", "gold"], "value": 5}],
        {"economy": {"gold": 5, "tax": 0.1}, "title": "base"},
    ),
    (
        "set creates intermediates",
        [{"op": "set", "path": ["event", "x", "y"], "value": [1]}],
        {**BASE, "event": {"x": {"y": [1]}}},
    ),
    (
        "add puts a new member",
        [{"op": "add", "path": ["economy", "bonus"], "value": {"d": 1}}],
        {"economy": {"gold": 100, "tax": 0.1, "bonus": {"d": 1}}, "title": "base"},
    ),
    ("add never overwrites", [{"op": "add", "path": ["title"], "value": "other"}], BASE),
    (
        "delete removes",
        [{"op": "delete", "path": ["economy", "tax"]}],
        {"economy": {"gold": 100}, "title": "base"},
    ),
    ("delete of a missing member is a no-op", [{"op": "delete", "path": ["nope", "deeper"]}], BASE),
    (
        "operations apply in order",
        [
            {"op": "set", "path": ["title"], "value": "one"},
            {"op": "delete", "path": ["title"]},
            {"op": "add", "path": ["title"], "value": "two"},
        ],
        {"economy": {"gold": 100, "tax": 0.1}, "title": "two"},
    ),
    ("set through a scalar is skipped", [{"op": "set", "path": ["title", "x"], "value": 1}], BASE),
]


@pytest.mark.parametrize(
    ("changeset", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_merge(changeset: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    before = copy.deepcopy(BASE)
    assert merged(BASE, changeset) == expected
    assert before == BASE  # the base is never modified


def test_values_are_copied_not_shared() -> None:
    value = {"list": [1]}
    result = merged(BASE, [{"op": "set", "path": ["v"], "value": value}])
    value["list"].append(2)
    assert result["v"] == {"list": [1]}


def test_only_objects_are_merged_into() -> None:
    with pytest.raises(ValueError):
        merged([1, 2], [])
