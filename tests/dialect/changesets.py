"""Group changesets: the dialect's RFC 6902 operations <-> the reference server's segment ops.

The dialect takes ``add``, ``replace`` and ``remove`` (``move``, ``copy`` and ``test`` depend on
the base document, which may change after the experiment is made, so they are refused):

- ``add`` at ``.../-`` appends to the array at ``...``: segment ``add`` there;
- ``add`` and ``replace`` elsewhere put the value (creating missing objects on the way): ``set``;
- ``remove`` removes what is there, if anything: ``delete``.

Each segment op keeps the dialect's own operation under ``ORIGINAL`` (the reference server stores
other fields of an operation and ignores them), so a changeset reads back as it was written.
"""

from __future__ import annotations

from typing import Any

from dialect.paths import PathError, pointer_of, pointer_segments

ORIGINAL = "x-dialect-rfc6902"
OPS = ("add", "replace", "remove")


class ChangesetError(ValueError):
    """A dialect changeset the dialect does not accept; the message says where."""


def to_segments(changeset: object) -> list[dict[str, Any]]:
    """The reference server's changeset for a dialect (RFC 6902) changeset."""
    if not isinstance(changeset, list):
        raise ChangesetError("a changeset is an array of RFC 6902 operations")
    out = []
    for index, operation in enumerate(changeset):
        at = f"changeset[{index}]"
        if not isinstance(operation, dict):
            raise ChangesetError(f"{at} must be an object")
        op, path = operation.get("op"), operation.get("path")
        if op not in OPS:
            raise ChangesetError(f"{at}.op must be one of {', '.join(OPS)}")
        if not isinstance(path, str):
            raise ChangesetError(f"{at}.path must be a JSON Pointer string")
        try:
            segments = pointer_segments(path)
        except PathError as error:
            raise ChangesetError(f"{at}.path: {error}") from None
        if not segments:
            raise ChangesetError(f"{at}.path must not be the whole document")
        if op != "remove" and "value" not in operation:
            raise ChangesetError(f"{at}: {op} requires a value")
        original = {k: operation[k] for k in ("op", "path", "value") if k in operation}
        if op == "remove":
            out.append({"op": "delete", "path": segments, ORIGINAL: original})
        elif op == "add" and segments[-1] == "-" and len(segments) > 1:
            value = operation["value"]
            out.append({"op": "add", "path": segments[:-1], "value": value, ORIGINAL: original})
        else:
            value = operation["value"]
            out.append({"op": "set", "path": segments, "value": value, ORIGINAL: original})
    return out


_BACK = {"set": "add", "delete": "remove"}


def to_json_patch(changeset: object) -> object:
    """The dialect's changeset for a stored (segment) one: as written, where it was kept."""
    if not isinstance(changeset, list):
        return changeset
    out: list[Any] = []
    for operation in changeset:
        if not isinstance(operation, dict):
            out.append(operation)
        elif isinstance(operation.get(ORIGINAL), dict):
            out.append(operation[ORIGINAL])
        else:
            out.append(_from_segments(operation))
    return out


def _from_segments(operation: dict[str, Any]) -> dict[str, Any]:
    op, path = operation.get("op"), [str(s) for s in operation.get("path", [])]
    if op == "add":  # append to an array, or put where absent: the closest is an append
        rendered = {"op": "add", "path": pointer_of([*path, "-"])}
    else:
        rendered = {"op": _BACK.get(str(op), str(op)), "path": pointer_of(path)}
    if "value" in operation and op != "delete":
        rendered["value"] = operation["value"]
    return rendered
