"""The forms a structural choice of a target profile gives a contract element.

Some profile keys choose a structure rather than a name: dotted paths instead of JSON Pointers
(``bodies.path_syntax``; ``bodies.private_path_syntax`` for the private paths), key-order
entries instead of a map (``bodies.patch.key_order_shape``),
RFC 6902 changesets (``experiment_payload.changeset_format``), offset or page paging
(``experiment_payload.pagination``), the base hash as an If-Match header
(``bodies.patch.base_hash_transport``). ``FORMS`` gives, for each such key and value, a
``Form``: the element's schema in that form, and how a value of the contract's form (an example,
a corpus body) reads in it and back. A value not listed keeps the contract's own form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from conformance.contract.profile_keys import MARK, Values
from conformance.json_types import JsonObject

PATH_KEY = "bodies.path_syntax"
PRIVATE_PATH_KEY = "bodies.private_path_syntax"  # null: as PATH_KEY


@dataclass(frozen=True)
class Form:
    """One form a structural choice gives an element: its schema, and how a value of the
    contract's form (an example, a corpus body) reads in it, and back."""

    schema: Callable[[Values], JsonObject]
    value: Callable[[object], object]
    back: Callable[[object], object]


def _same_value(value: object) -> object:
    return value


def _pointer_to_dotted(value: object) -> object:
    if not isinstance(value, str) or (value and not value.startswith("/")):
        return value
    return ".".join(t.replace("~1", "/").replace("~0", "~") for t in value.split("/")[1:])


def _dotted_to_pointer(value: object) -> object:
    if not isinstance(value, str) or value.startswith("/"):
        return value
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in value.split(".") if t)


def _map_to_entries(value: object) -> object:
    if not isinstance(value, dict):
        return value
    return [{"path": path, "keys": keys} for path, keys in value.items()]


def _entries_to_map(value: object) -> object:
    if not isinstance(value, list) or not all(isinstance(e, dict) and "path" in e for e in value):
        return value
    return {entry["path"]: entry.get("keys") for entry in value}


SEGMENT_OPS = {"set": "add", "add": "add", "delete": "remove"}
PATCH_OPS = {"add": "set", "replace": "set", "remove": "delete"}


def _segments_to_patch(value: object) -> object:
    if not isinstance(value, dict) or not isinstance(value.get("path"), list):
        return value
    path = "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in value["path"])
    op = str(value.get("op"))
    return {**value, "op": SEGMENT_OPS.get(op, op), "path": path}


def _patch_to_segments(value: object) -> object:
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        return value
    if value.get("op") not in PATCH_OPS:
        return value
    segments = [t.replace("~1", "/").replace("~0", "~") for t in value["path"].split("/")[1:]]
    return {**value, "op": PATCH_OPS[value["op"]], "path": segments}


# No pattern: the specification defines no path grammar and the profile only names the form,
# so whether a key may be empty or how a dot inside a key is escaped is the target's to decide
# (a server that reads ".x" as the key "" then "x" is as right as one that refuses it).
DOTTED_PATH: JsonObject = {
    "type": "string",
    "description": "A dotted path (economy.secretSeed); the root is the empty string. Its "
    "grammar beyond that (empty keys, escapes) is the target's own.",
}


def _key_order_entries(values: Values) -> JsonObject:
    path: JsonObject = (
        dict(DOTTED_PATH)
        if values.value(PATH_KEY) == "dotted"
        else {"$ref": "#/components/schemas/JsonPointer"}
    )
    path[MARK] = PATH_KEY
    return {
        "type": ["array", "null"],
        "description": "The key-order sidecar as entries: the path of an object in the result "
        "and the keys that move to its front, in that order. `null` counts as absent.",
        "items": {
            "type": "object",
            "required": ["path", "keys"],
            "properties": {"path": path, "keys": {"type": "array", "items": {"type": "string"}}},
        },
    }


def _paging_parameter(kind: str, first: int) -> Callable[[Values], JsonObject]:
    """The query parameter that pages by ``kind`` (offset or page) instead of a cursor."""

    def parameter(values: Values) -> JsonObject:
        name = values.value(f"experiment_payload.{kind}_param")
        return {
            "name": name if isinstance(name, str) else str(name),
            "in": "query",
            "required": False,
            "description": "The page number; the first page is 1."
            if kind == "page"
            else "How many items to skip.",
            "schema": {"type": "integer", "minimum": first},
        }

    return parameter


# key -> its value -> the form the element takes (a value not listed: the contract's own form).
FORMS: dict[str, dict[object, Form]] = {
    PATH_KEY: {
        "dotted": Form(lambda values: dict(DOTTED_PATH), _pointer_to_dotted, _dotted_to_pointer),
    },
    PRIVATE_PATH_KEY: {
        "dotted": Form(lambda values: dict(DOTTED_PATH), _pointer_to_dotted, _dotted_to_pointer),
    },
    "bodies.patch.key_order_shape": {
        "entries": Form(_key_order_entries, _map_to_entries, _entries_to_map),
    },
    "experiment_payload.changeset_format": {
        "json-patch": Form(
            lambda values: {
                "$ref": "#/components/schemas/JsonPatchOperation",
                "description": "One change a group makes to the base configuration, as an RFC "
                "6902 operation.",
            },
            _segments_to_patch,
            _patch_to_segments,
        ),
    },
    "experiment_payload.pagination": {
        "offset": Form(_paging_parameter("offset", 0), _same_value, _same_value),
        "page": Form(_paging_parameter("page", 1), _same_value, _same_value),
    },
    "bodies.patch.base_hash_transport": {},  # "if-match": the field moves (``moved_out``)
}
IF_MATCH: Mapping[str, object] = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'The contentHash the patch was made from, as an entity tag: "<hash>".',
    "schema": {"type": "string", "pattern": '^"[^"]*"$'},
    MARK: "bodies.patch.base_hash_transport",
}
