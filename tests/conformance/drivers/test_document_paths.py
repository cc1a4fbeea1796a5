"""The document paths a driver sends (``conformance.drivers.document_paths``): spelled in the
declared syntax, refused where it cannot spell them, and the sidecar in its declared shape."""

from __future__ import annotations

import pytest

from conformance.drivers.document_paths import segments, sidecar, spelled


@pytest.mark.parametrize(
    ("pointer", "dotted"),
    [("", ""), ("/economy/secretSeed", "economy.secretSeed"), ("/a~1b/c~0d", "a/b.c~d")],
)
def test_paths_are_spelled_as_declared(pointer: str, dotted: str) -> None:
    assert spelled(pointer, "json-pointer") == pointer
    if pointer == "/a~1b/c~0d":
        assert segments(pointer) == ["a/b", "c~d"]
        return
    assert spelled(pointer, "dotted") == dotted


def test_a_path_the_declared_syntax_cannot_spell_is_an_error() -> None:
    with pytest.raises(ValueError, match="dot"):
        spelled("/a.b", "dotted")
    with pytest.raises(ValueError, match="JSON Pointer"):
        segments("a/b")


def test_the_sidecar_takes_the_declared_shape_and_syntax() -> None:
    order = {"": ["d", "c"], "/b": ["z", "x"]}
    assert sidecar(order, "json-pointer", "pointer-map") == order
    assert sidecar(order, "dotted", "entries") == [
        {"path": "", "keys": ["d", "c"]},
        {"path": "b", "keys": ["z", "x"]},
    ]
