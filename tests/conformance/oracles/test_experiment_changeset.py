"""Unit tests of the suite's changeset oracle (set / add / delete on object paths)."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest

from conformance.oracles.experiment_changeset import as_json_patch, merged

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


# ------------------------------------------------------------------ declared as RFC 6902


@pytest.mark.parametrize(
    ("changeset", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_translated_to_json_patch_it_gives_the_same_document(
    changeset: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    """A target that declares ``changeset_format: json-patch`` gets operations that, applied by
    an RFC 6902 library (not the suite's oracle), make the document the oracle expects."""
    patch = as_json_patch(BASE, changeset)
    assert all(op["op"] in ("add", "remove") for op in patch)
    assert jsonpatch.apply_patch(BASE, patch) == expected


def test_json_patch_creates_missing_levels_in_one_add() -> None:
    patch = as_json_patch(BASE, [{"op": "set", "path": ["a/b", "c~d"], "value": 1}])
    assert patch == [{"op": "add", "path": "/a~1b", "value": {"c~d": 1}}]
