"""RFC 6902 JSON Patch, refserver's own engine (the suite's oracle is another library).

``parse_operations`` checks the shape (a malformed patch is ``PatchShapeError`` -> 400);
``apply`` runs the operations on a copy (an inapplicable one is ``PatchConflict`` -> 409), so a
failure leaves the caller's document untouched. Key order is content: ``add`` of a new member
appends it, ``replace`` keeps its position, ``move``/``copy`` to a new member append it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from refserver import pointer

# op -> the members it requires besides "op" (data, walked by parse_operations)
REQUIRED_MEMBERS: dict[str, tuple[str, ...]] = {
    "add": ("path", "value"),
    "remove": ("path",),
    "replace": ("path", "value"),
    "move": ("from", "path"),
    "copy": ("from", "path"),
    "test": ("path", "value"),
}


class PatchShapeError(ValueError):
    """The patch document is malformed (400)."""


class PatchConflict(ValueError):
    """A well-formed operation cannot be applied to this document (409)."""


@dataclass(frozen=True)
class Operation:
    """One parsed operation; ``path``/``source`` are key segments."""

    index: int
    op: str
    path: list[str]
    value: Any = None
    source: list[str] | None = None

    def describe(self) -> str:
        return f"operation {self.index} ({self.op})"


def _pointer_member(raw: dict[str, Any], name: str, index: int) -> list[str]:
    text = raw[name]
    if not isinstance(text, str):
        raise PatchShapeError(f"operation {index}: '{name}' must be a string")
    try:
        return pointer.parse(text)
    except pointer.PointerSyntaxError as exc:
        raise PatchShapeError(f"operation {index}: {exc}") from None


def parse_operations(raw: Any) -> list[Operation]:
    """Checked operations from the request's ``operations`` value."""
    if not isinstance(raw, list):
        raise PatchShapeError("operations must be an array")
    operations: list[Operation] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise PatchShapeError(f"operation {index} must be an object")
        op = item.get("op")
        if not isinstance(op, str) or op not in REQUIRED_MEMBERS:
            raise PatchShapeError(f"operation {index}: unknown op {op!r}")
        for member in REQUIRED_MEMBERS[op]:
            if member not in item:
                raise PatchShapeError(f"operation {index} ({op}) lacks '{member}'")
        operations.append(
            Operation(
                index=index,
                op=op,
                path=_pointer_member(item, "path", index),
                value=item.get("value"),
                source=_pointer_member(item, "from", index) if "from" in item else None,
            )
        )
    return operations


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (order kept) without Python-level recursion."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality: numbers by value, booleans distinct from numbers, objects unordered."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            json_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    return type(left) is type(right) and bool(left == right)


def _parent(document: Any, path: list[str]) -> Any:
    try:
        return pointer.resolve(document, path[:-1])
    except pointer.PointerResolutionError as exc:
        raise PatchConflict(str(exc)) from None


def _add(document: Any, path: list[str], value: Any) -> Any:
    if not path:
        return value
    parent, key = _parent(document, path), path[-1]
    if isinstance(parent, dict):
        parent[key] = value
    elif isinstance(parent, list):
        try:
            parent.insert(pointer.array_index(key, len(parent), allow_end=True), value)
        except pointer.PointerResolutionError as exc:
            raise PatchConflict(str(exc)) from None
    else:
        raise PatchConflict("the parent of the target is not an object or array")
    return document


def _remove(document: Any, path: list[str]) -> tuple[Any, Any]:
    """(document, removed value)."""
    if not path:
        raise PatchConflict("cannot remove the whole document")
    parent, key = _parent(document, path), path[-1]
    if isinstance(parent, dict):
        if key not in parent:
            raise PatchConflict(f"member {key!r} does not exist")
        return document, parent.pop(key)
    if isinstance(parent, list):
        try:
            return document, parent.pop(pointer.array_index(key, len(parent), allow_end=False))
        except pointer.PointerResolutionError as exc:
            raise PatchConflict(str(exc)) from None
    raise PatchConflict("the parent of the target is not an object or array")


def _replace(document: Any, path: list[str], value: Any) -> Any:
    if not path:
        return value
    parent, key = _parent(document, path), path[-1]
    if isinstance(parent, dict):
        if key not in parent:
            raise PatchConflict(f"member {key!r} does not exist")
        parent[key] = value
    elif isinstance(parent, list):
        try:
            parent[pointer.array_index(key, len(parent), allow_end=False)] = value
        except pointer.PointerResolutionError as exc:
            raise PatchConflict(str(exc)) from None
    else:
        raise PatchConflict("the parent of the target is not an object or array")
    return document


def _value_at(document: Any, path: list[str]) -> Any:
    try:
        return pointer.resolve(document, path)
    except pointer.PointerResolutionError as exc:
        raise PatchConflict(str(exc)) from None


def _apply_one(document: Any, operation: Operation) -> Any:
    path = operation.path
    if operation.op == "add":
        return _add(document, path, copy_json(operation.value))
    if operation.op == "remove":
        return _remove(document, path)[0]
    if operation.op == "replace":
        return _replace(document, path, copy_json(operation.value))
    if operation.op == "test":
        if not json_equal(_value_at(document, path), operation.value):
            raise PatchConflict("the tested value differs")
        return document
    source = operation.source
    assert source is not None
    if operation.op == "copy":
        return _add(document, path, copy_json(_value_at(document, source)))
    # move
    if path == source:
        _value_at(document, source)
        return document
    if path[: len(source)] == source:
        raise PatchConflict("cannot move a value into one of its own children")
    document, value = _remove(document, source)
    return _add(document, path, value)


def apply(document: Any, operations: list[Operation]) -> Any:
    """The patched copy of ``document``; PatchConflict names the failing operation."""
    result = copy_json(document)
    for operation in operations:
        try:
            result = _apply_one(result, operation)
        except PatchConflict as exc:
            raise PatchConflict(f"{operation.describe()} cannot be applied: {exc}") from None
    return result
