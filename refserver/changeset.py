"""Experiment group changesets: their validation and their merge into a base configuration.

A changeset is a list of ``{op: set|add|delete, path: [segments], value?}``. Segments are
strings: an object key, or, where the document holds an array, a decimal index ("0", "12").
Other fields of an operation, and a ``value`` on ``delete``, are ignored. The merge never
fails: the base configuration may change after the experiment was created, so an operation
whose path no longer fits the document is skipped rather than answered with an error.

- ``set``: put ``value`` at the path, replacing what is there. Missing (or null) intermediate
  objects are created. In an array, the index must exist or equal the length (append).
- ``add``: like ``set`` where the path is absent; where the path holds an array, append
  ``value`` to it; where it holds anything else, leave it (``add`` never overwrites).
- ``delete``: remove the member or element at the path if it exists; ``value`` is not allowed.

Replacing a member keeps its position; a new member is appended (key order is content).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

OPS = ("set", "add", "delete")
MAX_OPERATIONS = 1000
MAX_PATH_SEGMENTS = 64


class ChangesetError(ValueError):
    """A changeset whose shape is wrong; the message says where."""


def _index(container: list[Any], segment: str) -> int | None:
    """The array index a segment names (``len`` allowed, for appending), or None."""
    if not segment.isascii() or not segment.isdigit() or (len(segment) > 1 and segment[0] == "0"):
        return None
    index = int(segment)
    return index if index <= len(container) else None


def validate(changeset: object, where: str = "changeset") -> list[dict[str, Any]]:
    """Check a changeset's shape and return it as a list of operations."""
    if not isinstance(changeset, list):
        raise ChangesetError(f"{where} must be an array of operations")
    if len(changeset) > MAX_OPERATIONS:
        raise ChangesetError(f"{where} has more than {MAX_OPERATIONS} operations")
    for index, operation in enumerate(changeset):
        at = f"{where}[{index}]"
        if not isinstance(operation, dict):
            raise ChangesetError(f"{at} must be an object")
        op = operation.get("op")
        if op not in OPS:
            raise ChangesetError(f"{at}.op must be one of {', '.join(OPS)}")
        path = operation.get("path")
        if not isinstance(path, list) or not 1 <= len(path) <= MAX_PATH_SEGMENTS:
            raise ChangesetError(
                f"{at}.path must be an array of 1 to {MAX_PATH_SEGMENTS} key segments"
            )
        if not all(isinstance(segment, str) for segment in path):
            raise ChangesetError(f"{at}.path segments must be strings")
        if op != "delete" and "value" not in operation:
            raise ChangesetError(f"{at}: {op} requires a value")
    return changeset


def _child(container: Any, segment: str) -> tuple[bool, Any]:
    """(present, value) of one step down."""
    if isinstance(container, dict):
        return (segment in container, container.get(segment))
    if isinstance(container, list):
        index = _index(container, segment)
        if index is not None and index < len(container):
            return (True, container[index])
    return (False, None)


def _parent(document: Any, path: list[str], create: bool) -> Any:
    """The container holding the path's last segment, or None when it cannot be reached."""
    container = document
    for segment in path[:-1]:
        present, value = _child(container, segment)
        if create and isinstance(container, dict) and (not present or value is None):
            value = {}
            container[segment] = value
        elif not present:
            return None
        container = value
    return container


def _set(container: Any, segment: str, value: Any) -> None:
    if isinstance(container, dict):
        container[segment] = value
    elif isinstance(container, list):
        index = _index(container, segment)
        if index == len(container):
            container.append(value)
        elif index is not None:
            container[index] = value


def _add(container: Any, segment: str, value: Any) -> None:
    present, current = _child(container, segment)
    if not present:
        _set(container, segment, value)
    elif isinstance(current, list):
        current.append(value)


def _delete(container: Any, segment: str, _value: Any) -> None:
    present, _ = _child(container, segment)
    if not present:
        return
    if isinstance(container, dict):
        del container[segment]
    else:
        index = _index(container, segment)
        assert index is not None
        del container[index]


APPLY: dict[str, Callable[[Any, str, Any], None]] = {
    "set": _set,
    "add": _add,
    "delete": _delete,
}


def merge(base: Any, changeset: list[dict[str, Any]]) -> Any:
    """A new document: ``base`` with the changeset applied in order. ``base`` is not modified."""
    document = copy.deepcopy(base)
    for operation in changeset:
        op = operation["op"]
        path: list[str] = operation["path"]
        creates = op != "delete"
        if document is None and creates:
            document = {}
        container = _parent(document, path, create=creates)
        if container is None:
            continue
        APPLY[op](container, path[-1], copy.deepcopy(operation.get("value")))
    return document
