"""Paths into a configuration document in the target's declared spelling (``bodies.path_syntax``)
and the key-order sidecar in its declared shape (``bodies.patch.key_order_shape``).

Scenarios write paths as JSON Pointers (RFC 6901) and sidecars as ``{pointer: [keys]}``; these
functions turn them into what the target declares just before sending, and back when reading.
The specification shows neither (spec 2.1 gives privateKeys only as an array of strings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.json_types import JsonValue

JSON_POINTER = "json-pointer"
DOTTED = "dotted"
POINTER_MAP = "pointer-map"
ENTRIES = "entries"


def segments(pointer: str) -> list[str]:
    """The key segments of a JSON Pointer ("" is the root: no segment)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {pointer!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def spelled(pointer: str, syntax: str) -> str:
    """``pointer`` as the target spells a path."""
    if syntax == JSON_POINTER:
        return pointer
    if syntax == DOTTED:
        parts = segments(pointer)
        if any("." in part for part in parts):
            raise ValueError(f"a dotted path cannot hold a key with a dot: {pointer!r}")
        return ".".join(parts)
    raise ValueError(f"unknown path syntax {syntax!r}")


def sidecar(order: Mapping[str, Sequence[str]], syntax: str, shape: str) -> JsonValue:
    """A ``{pointer: [keys]}`` sidecar in the target's path syntax and sidecar shape."""
    paths: dict[str, JsonValue] = {
        spelled(pointer, syntax): list(keys) for pointer, keys in order.items()
    }
    if shape == POINTER_MAP:
        return paths
    if shape == ENTRIES:
        return [{"path": path, "keys": keys} for path, keys in paths.items()]
    raise ValueError(f"unknown key-order sidecar shape {shape!r}")
