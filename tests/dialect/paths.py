"""Document paths: JSON Pointer (the reference server) <-> dotted (the dialect).

Dotted: the root is ``""``; otherwise the key segments joined by ``.``, where a segment's own
``\\`` and ``.`` are escaped with a backslash (``a\\.b`` is the one key ``a.b``).
"""

from __future__ import annotations


class PathError(ValueError):
    """A path that is not well-formed in its syntax."""


def pointer_segments(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PathError(f"a JSON Pointer starts with '/': {pointer!r}")
    return [s.replace("~1", "/").replace("~0", "~") for s in pointer[1:].split("/")]


def pointer_of(segments: list[str]) -> str:
    return "".join("/" + s.replace("~", "~0").replace("/", "~1") for s in segments)


def dotted_segments(dotted: str) -> list[str]:
    if dotted == "":
        return []
    segments, current, escaped = [], [], False
    for char in dotted:
        if escaped:
            if char not in "\\.":
                raise PathError(f"only '\\\\' and '\\.' are escapes: {dotted!r}")
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ".":
            segments.append("".join(current))
            current = []
        else:
            current.append(char)
    if escaped:
        raise PathError(f"a dotted path cannot end in a lone backslash: {dotted!r}")
    segments.append("".join(current))
    return segments


def dotted_of(segments: list[str]) -> str:
    if segments == [""]:
        raise PathError("a single empty key has no dotted spelling (it reads as the root)")
    return ".".join(s.replace("\\", "\\\\").replace(".", "\\.") for s in segments)


def to_pointer(dotted: str) -> str:
    return pointer_of(dotted_segments(dotted))


def to_dotted(pointer: str) -> str:
    return dotted_of(pointer_segments(pointer))
