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
from collections.abc import Callable, Iterable, Mapping, Sequence

Operation = Mapping[str, object]  # one change: {op, path, value?}
Document = dict[str, object]  # a configuration document the oracle changes


def _parent(document: Document, path: Sequence[str], create: bool) -> Document | None:
    """The object holding the path's last segment (created on the way when ``create``)."""
    node: object = document
    for segment in path[:-1]:
        if not isinstance(node, dict):
            return None
        child = node.get(segment)
        if child is None and create:
            child = node[segment] = {}
        node = child
    return node if isinstance(node, dict) else None


def _set(document: Document, path: Sequence[str], value: object) -> None:
    parent = _parent(document, path, create=True)
    if parent is not None:
        parent[path[-1]] = copy.deepcopy(value)


def _add(document: Document, path: Sequence[str], value: object) -> None:
    parent = _parent(document, path, create=True)
    if parent is not None and path[-1] not in parent:
        parent[path[-1]] = copy.deepcopy(value)


def _delete(document: Document, path: Sequence[str], value: object) -> None:
    parent = _parent(document, path, create=False)
    if parent is not None:
        parent.pop(path[-1], None)


Apply = Callable[[Document, Sequence[str], object], None]
OPERATIONS: dict[str, Apply] = {
    "set": _set,
    "add": _add,
    "delete": _delete,
}


def _parts(operation: Operation) -> tuple[Apply, list[str], object]:
    """What an operation does, its path and its value; a malformed operation is a ``KeyError``
    or ``TypeError`` (a scenario may send one on purpose)."""
    op, path = operation["op"], operation["path"]
    if not isinstance(op, str) or op not in OPERATIONS:
        raise KeyError(op)
    if not isinstance(path, Iterable):
        raise TypeError(f"not a path: {path!r}")
    return OPERATIONS[op], list(path), operation.get("value")


def merged(base: object, changeset: Sequence[Operation]) -> Document:
    """``base`` with ``changeset`` applied in order (the base itself is left untouched)."""
    if not isinstance(base, dict):
        raise ValueError("the suite's changeset oracle only merges into a JSON object")
    document: Document = copy.deepcopy(base)
    for operation in changeset:
        apply, path, value = _parts(operation)
        apply(document, path, value)
    return document


def _pointer(path: Sequence[str]) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in path)


def _present(document: object, path: Sequence[str]) -> bool:
    for segment in path:
        if not isinstance(document, dict) or segment not in document:
            return False
        document = document[segment]
    return True


def _nested(path: Sequence[str], value: object) -> object:
    for segment in reversed(path):
        value = {segment: value}
    return value


def as_json_patch(base: object, changeset: Sequence[Operation]) -> list[Document]:
    """RFC 6902 operations that turn ``base`` into ``merged(base, changeset)``.

    Each operation is translated against the document as the ones before it left it: ``set``
    becomes an ``add`` at the first missing level (carrying the rest as nested objects) or at
    the path itself, ``add`` is dropped where the path is present, ``delete`` becomes a
    ``remove`` of a member that exists."""
    document: Document = copy.deepcopy(base) if isinstance(base, dict) else {}
    patch: list[Document] = []
    for operation in changeset:
        apply, path, value = _parts(operation)
        before = copy.deepcopy(document)
        apply(document, path, value)
        if document == before and _present(before, path) == _present(document, path):
            continue  # the oracle leaves the document as it is: nothing to send
        if not _present(document, path):
            patch.append({"op": "remove", "path": _pointer(path)})
            continue
        depth = next((i for i in range(1, len(path)) if not _present(before, path[:i])), len(path))
        nested = _nested(path[depth:], copy.deepcopy(value))
        patch.append({"op": "add", "path": _pointer(path[:depth]), "value": nested})
    return patch
