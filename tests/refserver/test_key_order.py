"""refserver.key_order: the key-order sidecar."""

from __future__ import annotations

import json
from typing import Any

import pytest

from refserver.key_order import apply_sidecar, parse_sidecar, reorder
from refserver.patching import PatchConflict, PatchShapeError


def test_listed_keys_move_to_the_front_in_order() -> None:
    target = {"a": 1, "b": 2, "c": 3, "d": 4}
    reorder(target, ["c", "a", "missing", "c"])
    assert list(target) == ["c", "a", "b", "d"]


def test_nested_and_root_pointers() -> None:
    document: dict[str, Any] = {"x": 1, "inner": {"p": 1, "q": 2}}
    apply_sidecar(document, parse_sidecar({"": ["inner"], "/inner": ["q"]}))
    assert json.dumps(document) == '{"inner": {"q": 2, "p": 1}, "x": 1}'


@pytest.mark.parametrize("raw", [[], {"": "a"}, {"": [1]}, {"nope": ["a"]}, "x"])
def test_malformed_sidecar(raw: Any) -> None:
    with pytest.raises(PatchShapeError):
        parse_sidecar(raw)


@pytest.mark.parametrize("sidecar", [{"/a": ["x"]}, {"/missing": ["x"]}, {"/l/0": []}])
def test_pointer_that_is_not_an_object_conflicts(sidecar: dict[str, Any]) -> None:
    with pytest.raises(PatchConflict):
        apply_sidecar({"a": 1, "l": [1]}, parse_sidecar(sidecar))
