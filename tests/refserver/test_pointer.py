"""refserver.pointer: JSON Pointer parsing and resolution."""

from __future__ import annotations

import pytest

from refserver import pointer


@pytest.mark.parametrize(
    ("text", "segments"),
    [("", []), ("/", [""]), ("/a/b", ["a", "b"]), ("/a~1b/~0c", ["a/b", "~c"]), ("/~01", ["~1"])],
)
def test_parse(text: str, segments: list[str]) -> None:
    assert pointer.parse(text) == segments


@pytest.mark.parametrize("text", ["a", "a/b", "/~", "/~2"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(pointer.PointerSyntaxError):
        pointer.parse(text)


def test_resolve() -> None:
    doc = {"a": [{"b": 5}]}
    assert pointer.resolve(doc, ["a", "0", "b"]) == 5
    for bad in (["x"], ["a", "1"], ["a", "0", "b", "c"], ["a", "-"]):
        with pytest.raises(pointer.PointerResolutionError):
            pointer.resolve(doc, bad)


def test_array_index() -> None:
    assert pointer.array_index("-", 3, allow_end=True) == 3
    assert pointer.array_index("3", 3, allow_end=True) == 3
    for bad in ("3", "-1", "01", "\u0661", "9" * 5000):
        with pytest.raises(pointer.PointerResolutionError):
            pointer.array_index(bad, 3, allow_end=False)
