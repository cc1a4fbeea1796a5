"""JSON Pointers (RFC 6901): parsing into key segments and resolving against a document."""

from __future__ import annotations

from typing import Any


class PointerSyntaxError(ValueError):
    """The text is not a JSON Pointer (it must be empty or start with ``/``)."""


class PointerResolutionError(LookupError):
    """The pointer does not name a value in the document."""


def parse(pointer: str) -> list[str]:
    """``"/a/b~1c"`` -> ``["a", "b/c"]``; ``""`` -> ``[]`` (the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerSyntaxError(f"pointer {pointer!r} must be empty or start with '/'")
    segments = pointer[1:].split("/")
    for segment in segments:
        stripped = segment.replace("~0", "").replace("~1", "")
        if "~" in stripped:
            raise PointerSyntaxError(f"pointer {pointer!r} has a bad '~' escape")
    return [s.replace("~1", "/").replace("~0", "~") for s in segments]


def array_index(segment: str, length: int, *, allow_end: bool) -> int:
    """The list index a segment names; ``-`` (append) only when ``allow_end``."""
    if segment == "-" and allow_end:
        return length
    if not segment.isdigit() or not segment.isascii() or (len(segment) > 1 and segment[0] == "0"):
        raise PointerResolutionError(f"{segment!r} is not an array index")
    if len(segment) > 18:  # beyond any list, and int() refuses very long digit strings
        raise PointerResolutionError("index is out of range")
    index = int(segment)
    limit = length if allow_end else length - 1
    if index > limit:
        raise PointerResolutionError(f"index {index} is out of range")
    return index


def resolve(document: Any, segments: list[str]) -> Any:
    """The value the segments name, or PointerResolutionError."""
    current = document
    for segment in segments:
        if isinstance(current, dict):
            if segment not in current:
                raise PointerResolutionError(f"member {segment!r} does not exist")
            current = current[segment]
        elif isinstance(current, list):
            current = current[array_index(segment, len(current), allow_end=False)]
        else:
            raise PointerResolutionError(f"cannot descend into a scalar at {segment!r}")
    return current
