"""The suite's own oracle for group changesets: ``{op: set|add|delete, path: [segments], value?}``,
and their translation into RFC 6902 for a target that declares that format.

Independent of any implementation under test. It covers only the unambiguous part of the
observed semantics, which is all the scenarios use: paths through objects (no array indices),
``set`` puts a value (creating missing intermediate objects), ``add`` puts a value only where the
path is absent, ``delete`` removes a member that exists. Results are compared with ``==``, so key
order is not judged here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

Operation = dict[str, Any]


def _parent(document: dict[str, Any], path: Sequence[str], create: bool) -> dict[str, Any] | None:
    """The object holding the path's last segment (created on the way when ``create``)."""
    node: Any = document
    for segment in path[:-1]:
        if not isinstance(node, dict):
            return None
        child = node.get(segment)
        if child is None and create:
            child = node[segment] = {}
        node = child
    return node if isinstance(node, dict) else None


def _set(document: dict[str, Any], path: Sequence[str], value: Any) -> None:
    parent = _parent(document, path, create=True)
    if parent is not None:
        parent[path[-1]] = copy.deepcopy(value)


def _add(document: dict[str, Any], path: Sequence[str], value: Any) -> None:
    parent = _parent(document, path, create=True)
    if parent is not None and path[-1] not in parent:
        parent[path[-1]] = copy.deepcopy(value)


def _delete(document: dict[str, Any], path: Sequence[str], value: Any) -> None:
    parent = _parent(document, path, create=False)
    if parent is not None:
        parent.pop(path[-1], None)


OPERATIONS: dict[str, Callable[[dict[str, Any], Sequence[str], Any], None]] = {
    "set": _set,
    "add": _add,
    "delete": _delete,
}


def merged(base: Any, changeset: Sequence[Operation]) -> Any:
    """``base`` with ``changeset`` applied in order (the base itself is left untouched)."""
    if not isinstance(base, dict):
        raise ValueError("the suite's changeset oracle only merges into a JSON object")
    document = copy.deepcopy(base)
    for operation in changeset:
        OPERATIONS[operation["op"]](document, list(operation["path"]), operation.get("value"))
    return document


def _pointer(path: Sequence[str]) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in path)


def _present(document: Any, path: Sequence[str]) -> bool:
    for segment in path:
        if not isinstance(document, dict) or segment not in document:
            return False
        document = document[segment]
    return True


def _nested(path: Sequence[str], value: Any) -> Any:
    for segment in reversed(path):
        value = {segment: value}
    return value


def as_json_patch(base: Any, changeset: Sequence[Operation]) -> list[Operation]:
    """RFC 6902 operations that turn ``base`` into ``merged(base, changeset)``.

    Each operation is translated against the document as the ones before it left it: ``set``
    becomes an ``add`` at the first missing level (carrying the rest as nested objects) or at
    the path itself, ``add`` is dropped where the path is present, ``delete`` becomes a
    ``remove`` of a member that exists."""
    document = copy.deepcopy(base) if isinstance(base, dict) else {}
    patch: list[Operation] = []
    for operation in changeset:
        path = list(operation["path"])
        before = copy.deepcopy(document)
        OPERATIONS[operation["op"]](document, path, operation.get("value"))
        if document == before and _present(before, path) == _present(document, path):
            continue  # the oracle leaves the document as it is: nothing to send
        if not _present(document, path):
            patch.append({"op": "remove", "path": _pointer(path)})
            continue
        depth = next((i for i in range(1, len(path)) if not _present(before, path[:i])), len(path))
        value = _nested(path[depth:], copy.deepcopy(operation.get("value")))
        patch.append({"op": "add", "path": _pointer(path[:depth]), "value": value})
    return patch
