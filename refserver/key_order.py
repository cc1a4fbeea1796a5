"""The key-order sidecar of a patch: ``{pointer: [keys...]}`` reorders objects of the result.

Listed keys move to the front in the listed order, unlisted keys keep their relative order after
them, absent listed keys are ignored. A malformed sidecar is ``PatchShapeError`` (400); a pointer
that does not name an object is ``PatchConflict`` (409).
"""

from __future__ import annotations

from typing import Any

from refserver import pointer
from refserver.patching import PatchConflict, PatchShapeError


def parse_sidecar(raw: Any) -> list[tuple[str, list[str], list[str]]]:
    """(pointer text, segments, keys) for each entry, in request order."""
    if not isinstance(raw, dict):
        raise PatchShapeError("keyOrder must be an object of JSON Pointer -> array of keys")
    entries: list[tuple[str, list[str], list[str]]] = []
    for text, keys in raw.items():
        try:
            segments = pointer.parse(text)
        except pointer.PointerSyntaxError as exc:
            raise PatchShapeError(f"keyOrder: {exc}") from None
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise PatchShapeError(f"keyOrder[{text!r}] must be an array of strings")
        entries.append((text, segments, keys))
    return entries


def reorder(target: dict[str, Any], keys: list[str]) -> None:
    """Reorder one object in place."""
    front = list(dict.fromkeys(k for k in keys if k in target))
    listed = set(front)
    order = front + [k for k in target if k not in listed]
    items = [(k, target[k]) for k in order]
    target.clear()
    target.update(items)


def apply_sidecar(document: Any, entries: list[tuple[str, list[str], list[str]]]) -> None:
    """Reorder the named objects of ``document`` in place."""
    for text, segments, keys in entries:
        try:
            target = pointer.resolve(document, segments)
        except pointer.PointerResolutionError as exc:
            raise PatchConflict(f"keyOrder[{text!r}]: {exc}") from None
        if not isinstance(target, dict):
            raise PatchConflict(f"keyOrder[{text!r}] does not name an object")
        reorder(target, keys)
