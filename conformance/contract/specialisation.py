"""The contract in a target's terms: the OpenAPI document specialised by a target profile.

The contract marks every element a profile key fills with ``x-profile-key`` (a dotted key, or a
list of them). ``RULES`` says, as data, what each key fills: a parameter's name, a property's
name, a response's status, an enum, an enum value, a bound, or the form of a structural choice;
``FORMS`` gives each structural choice's forms (a schema, and how a value of the contract's
form reads in it and back): dotted paths, key-order entries, RFC 6902 changesets, offset or
page paging, the base hash as an If-Match header. ``specialise(document, profile)`` applies them
and returns a new document; each element filled keeps its ``x-profile-key`` and gains
``x-profile-value`` (the value used), and where that value differs from the contract's own (the
reference server's choice, the profile's default) ``x-spec: declared``: the element is the
target's declared choice, no longer a gap the contract guessed. Examples, schema examples and
defaults, ``required`` lists and the request bodies of links follow.

``Renamer`` translates one request between the contract's names and a target's (the fuzz
corpus keeps cases in the contract's names and replays them in the run's).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from conformance.contract.document import resolve
from conformance.target.profile import DEFAULTS, parse

if TYPE_CHECKING:
    from conformance.target.profile import Profile

MARK = "x-profile-key"
VALUE_MARK = "x-profile-value"
DECLARED = "declared"  # the x-spec of an element whose value the profile changed

NAME = "parameter name"
PROPERTY = "property name"
STATUS = "response status"
ENUM = "enum"
ENUM_VALUE = "enum value"
MAXIMUM = "maximum"
MAX_ITEMS = "maxItems"
# Structural choices: the element's schema takes another form (``FORMS``).
PAGINATION = "pagination"
BASE_HASH_TRANSPORT = "base hash transport"
PATH_SYNTAX = "path syntax"
KEY_ORDER_SHAPE = "key order shape"
CHANGESET_FORMAT = "changeset format"

# (key pattern, what the key fills): the first pattern that matches a key decides.
RULES: tuple[tuple[str, str], ...] = (
    ("headers.*", NAME),
    ("experiment_payload.*_param", NAME),
    ("statuses.*", STATUS),
    ("errors.*_status", STATUS),
    ("experiments.unit_types", ENUM),
    ("experiments.assignment_modes", ENUM),
    ("experiments.max_groups", MAX_ITEMS),
    ("experiments.weight_total", MAXIMUM),
    ("experiments.page_size_max", MAXIMUM),
    ("experiment_payload.terminated", ENUM_VALUE),
    ("experiment_payload.member_*", ENUM_VALUE),
    ("experiment_payload.pagination", PAGINATION),
    ("bodies.patch.base_hash_transport", BASE_HASH_TRANSPORT),
    ("bodies.path_syntax", PATH_SYNTAX),
    ("bodies.patch.key_order_shape", KEY_ORDER_SHAPE),
    ("experiment_payload.changeset_format", CHANGESET_FORMAT),
    ("bodies.*", PROPERTY),
    ("errors.*_field", PROPERTY),
    ("bootstrap_payload.*", PROPERTY),
    ("experiment_payload.*", PROPERTY),
)
# A property marked with the first key is required only while the second key has that value
# (with offset or page pagination a last page need not say there is no next one).
REQUIRED_ONLY_WHEN: dict[str, tuple[str, Any]] = {
    "experiment_payload.next_cursor": ("experiment_payload.pagination", "cursor"),
}
# A status key whose value may be null: null means the status of this other key.
STATUS_FALLBACK: dict[str, str] = {"errors.malformed_body_status": "errors.validation_status"}
# Only what a profile cannot default: the names and statuses all come from the defaults.
DEFAULT_PROFILE = """\
profile_version: 1
credentials: {pat: "-", sdk_keys: [{key: "-", environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
"""
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def rule_of(key: str) -> str | None:
    """What ``key`` fills (one of the kinds above), or None for a key no rule knows."""
    return next((kind for pattern, kind in RULES if fnmatchcase(key, pattern)), None)


def marks(node: Any) -> tuple[str, ...]:
    """The profile keys a node carries (``x-profile-key``: one key or a list)."""
    if not isinstance(node, dict) or MARK not in node:
        return ()
    given = node[MARK]
    return tuple(str(k) for k in given) if isinstance(given, list) else (str(given),)


def _lookup(data: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return _MISSING
        data = data[part]
    return data


_MISSING = object()


@dataclass(frozen=True)
class Values:
    """The value of each profile key for one target, and the contract's own (the default)."""

    given: dict[str, Any]
    defaults: dict[str, Any]

    @classmethod
    def of(cls, profile: Profile) -> Values:
        return cls(profile.raw, DEFAULTS)

    def value(self, key: str) -> Any:
        """The profile's value of ``key`` (a null status falls back as ``STATUS_FALLBACK`` says);
        ``_MISSING`` for a key this profile does not have."""
        found = _lookup(self.given, key)
        if found is None and key in STATUS_FALLBACK:
            return self.value(STATUS_FALLBACK[key])
        return found

    def default(self, key: str) -> Any:
        found = _lookup(self.defaults, key)
        if found is None and key in STATUS_FALLBACK:
            return self.default(STATUS_FALLBACK[key])
        return found

    def changed(self, key: str) -> bool:
        value = self.value(key)
        return value is not _MISSING and value != self.default(key)


def _fill(node: dict[str, Any], key: str, value: Any, values: Values) -> None:
    """Mark ``node`` as filled from ``key`` with ``value``."""
    if len(marks(node)) > 1:  # one value per key
        node.setdefault(VALUE_MARK, {})[key] = value
    else:
        node[VALUE_MARK] = value
    if values.changed(key):
        node["x-spec"] = DECLARED


# ------------------------------------------------------------------ instances along a schema


def property_nodes(document: dict[str, Any], schema: Any) -> dict[str, Any]:
    """Every property a schema declares, through ``$ref`` and ``allOf``/``oneOf``/``anyOf``."""
    schema = resolve(document, schema, strict=False)
    if not isinstance(schema, dict):
        return {}
    found: dict[str, Any] = {}
    for branch in [*schema.get("allOf", []), *schema.get("oneOf", []), *schema.get("anyOf", [])]:
        found.update(property_nodes(document, branch))  # a later branch is the more specific
    found.update(schema.get("properties", {}))
    return found


def _items_of(document: dict[str, Any], schema: Any) -> Any:
    schema = resolve(document, schema, strict=False)
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("items"), dict):
        return schema["items"]
    for branch in [*schema.get("allOf", []), *schema.get("oneOf", []), *schema.get("anyOf", [])]:
        found = _items_of(document, branch)
        if found is not None:
            return found
    return None


def _extra_of(document: dict[str, Any], schema: Any) -> Any:
    schema = resolve(document, schema, strict=False)
    extra = schema.get("additionalProperties") if isinstance(schema, dict) else None
    return extra if isinstance(extra, dict) else None


NameOf = Callable[[str, Any], str]  # (property name, property node) -> the name to use
ValueOf = Callable[[Any, Any], Any]  # (schema node, value) -> the value to use


def _same(schema: Any, value: Any) -> Any:
    return value


def _same_value(value: Any) -> Any:
    return value


def translate_instance(
    document: dict[str, Any],
    schema: Any,
    instance: Any,
    name_of: NameOf,
    value_of: ValueOf,
    shape_of: ValueOf = _same,
) -> Any:
    """``instance`` walked along ``schema`` of ``document``: each object key renamed by
    ``name_of`` (or, under ``propertyNames``, mapped by ``value_of``), each scalar mapped by
    ``value_of``, and each object or array, once walked, given its form by ``shape_of``; what
    the schema does not describe is kept as it is."""

    def again(node: Any, value: Any) -> Any:
        return translate_instance(document, node, value, name_of, value_of, shape_of)

    if isinstance(instance, dict):
        properties = property_nodes(document, schema)
        extra = _extra_of(document, schema)
        resolved = resolve(document, schema, strict=False)
        names = resolved.get("propertyNames") if isinstance(resolved, dict) else None
        out: dict[str, Any] = {}
        for key, value in instance.items():
            node = properties.get(key, extra)
            if key in properties:
                name = name_of(key, node)
            else:
                name = key if names is None else value_of(names, key)
            out[name] = value if node is None else again(node, value)
        return shape_of(schema, out)
    if isinstance(instance, list):
        items = _items_of(document, schema)
        if items is None:
            return instance
        return shape_of(schema, [again(items, v) for v in instance])
    return value_of(schema, instance)


# ------------------------------------------------------------------ the specialiser


class _Specialiser:
    def __init__(self, contract: dict[str, Any], values: Values) -> None:
        self.contract = contract  # the original: examples are walked along its schemas
        self.values = values

    # names and values an original node maps to
    def name_of(self, name: str, node: Any) -> str:
        for key in marks(node):
            if rule_of(key) == PROPERTY:
                value = self.values.value(key)
                if isinstance(value, str) and value:
                    return value
        return name

    def value_of(self, schema: Any, value: Any) -> Any:
        """A scalar of an example or default, as the target's enums and bounds have it."""
        for node in _schema_chain(self.contract, schema):
            for key in marks(node):
                kind, new, default = rule_of(key), self.values.value(key), self.values.default(key)
                if new is _MISSING:
                    continue
                if kind == ENUM_VALUE and value == default:
                    return new
                if kind == ENUM and isinstance(default, list) and value in default and new:
                    index = default.index(value)
                    return new[index] if index < len(new) else new[0]
                if kind == MAXIMUM and _number(value) and _number(new) and value > new:
                    return new
                if kind == PATH_SYNTAX and isinstance(value, str):
                    return FORMS[key][new].value(value) if new in FORMS[key] else value
        return value

    def shape_of(self, schema: Any, value: Any) -> Any:
        """An object or array of an example, in the form the target's choices give it."""
        for node in _schema_chain(self.contract, schema):
            for key in marks(node):
                if key not in FORMS or rule_of(key) == PATH_SYNTAX:
                    continue
                form = FORMS[key].get(self.values.value(key))
                if form is not None:
                    return form.value(value)
        return value

    def instance(self, schema: Any, value: Any) -> Any:
        return translate_instance(
            self.contract, schema, value, self.name_of, self.value_of, self.shape_of
        )

    # the walk
    def run(self) -> dict[str, Any]:
        document = copy.deepcopy(self.contract)
        self._examples(document, self.contract)
        self._links(document)
        self._nodes(document)
        self._statuses(document)
        self._headers_for_moved_fields(document)
        return document

    def _examples(self, new: Any, old: Any) -> None:
        """Examples follow renamed properties and values (walked along the original schemas)."""
        if isinstance(old, list):
            for n, o in zip(new, old, strict=True):
                self._examples(n, o)
            return
        if not isinstance(old, dict):
            return
        schema = old.get("schema") if "in" in old or "examples" in old or "example" in old else None
        if "schema" in old and isinstance(schema, dict):
            if "example" in old:
                new["example"] = self.instance(schema, old["example"])
            for name, example in (old.get("examples") or {}).items():
                if isinstance(example, dict) and "value" in example:
                    new["examples"][name]["value"] = self.instance(schema, example["value"])
        elif _is_schema(old):
            for key in ("example", "default"):
                if key in old:
                    new[key] = self.instance(old, old[key])
        for key, value in old.items():
            if key not in ("example", "examples"):
                self._examples(new[key], value)

    def _links(self, document: dict[str, Any]) -> None:
        """A link's request body names body fields: those follow their properties."""
        operations = {op["operationId"]: op for _p, _m, op in _operations(document)}
        originals = {op["operationId"]: op for _p, _m, op in _operations(self.contract)}
        for operation in operations.values():
            for response in operation.get("responses", {}).values():
                for link in (response.get("links") or {}).values():
                    body = link.get("requestBody")
                    target = originals.get(link.get("operationId"))
                    if not isinstance(body, dict) or target is None:
                        continue
                    schema = _body_schema(self.contract, target)
                    fields = property_nodes(self.contract, schema)
                    link["requestBody"] = {
                        (self.name_of(k, fields[k]) if k in fields else k): v
                        for k, v in body.items()
                        if not (k in fields and self._moved_out(fields[k]))
                    }
                    if not link["requestBody"]:
                        del link["requestBody"]

    def _nodes(self, node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                self._nodes(item)
            return
        if not isinstance(node, dict):
            return
        for key in marks(node):
            self._apply(node, key)
        properties = node.get("properties")
        if isinstance(properties, dict) and _is_schema(node):
            renamed: dict[str, Any] = {}
            for name, child in properties.items():
                if self._moved_out(child):
                    continue
                new = self.name_of(name, child)
                for key in marks(child):
                    if rule_of(key) == PROPERTY and self.values.value(key) is not _MISSING:
                        _fill(child, key, new, self.values)
                renamed[new] = child
            node["properties"] = renamed
            if isinstance(node.get("required"), list):
                node["required"] = [
                    self.name_of(n, properties.get(n))
                    for n in node["required"]
                    if self._required(properties.get(n))
                ]
        for key, value in node.items():
            if key not in ("example", "examples", "links"):
                self._nodes(value)

    def _moved_out(self, node: Any) -> bool:
        """A body field the target takes elsewhere (the base hash as an If-Match header)."""
        return any(
            rule_of(key) == BASE_HASH_TRANSPORT and self.values.value(key) == "if-match"
            for key in marks(node)
        )

    def _required(self, node: Any) -> bool:
        for key in marks(node):
            if key in REQUIRED_ONLY_WHEN:
                other, value = REQUIRED_ONLY_WHEN[key]
                given = self.values.value(other)
                return given is _MISSING or given == value
        return True

    def _headers_for_moved_fields(self, document: dict[str, Any]) -> None:
        """An operation whose body field moved to a header gets that header as a parameter."""
        originals = {op["operationId"]: op for _p, _m, op in _operations(self.contract)}
        for _p, _m, operation in _operations(document):
            original = originals.get(operation["operationId"], {})
            schema = _body_schema(self.contract, original)
            for child in property_nodes(self.contract, schema).values() if schema else ():
                for key in marks(child):
                    if rule_of(key) == BASE_HASH_TRANSPORT and self._moved_out(child):
                        parameter = copy.deepcopy(IF_MATCH)
                        _fill(parameter, key, self.values.value(key), self.values)
                        operation.setdefault("parameters", []).append(parameter)

    def _apply(self, node: dict[str, Any], key: str) -> None:
        kind, value = rule_of(key), self.values.value(key)
        if value is _MISSING or kind in (None, PROPERTY, STATUS):
            return  # properties are renamed by their parent, statuses per operation
        if kind == NAME and "in" in node and isinstance(value, str) and value:
            node["name"] = value
        elif kind == ENUM and isinstance(node.get("enum"), list):
            node["enum"] = list(value)
            if "default" in node and node["default"] not in node["enum"]:
                node["default"] = node["enum"][0]
        elif kind == ENUM_VALUE and isinstance(node.get("enum"), list):
            default = self.values.default(key)
            node["enum"] = [value if item == default else item for item in node["enum"]]
        elif kind in (MAXIMUM, MAX_ITEMS) and kind in node:
            node[kind] = value
        elif key in FORMS and value in FORMS[key]:
            kept = {k: v for k, v in node.items() if k.startswith("x-")}
            node.clear()
            node.update(FORMS[key][value].schema(self.values))
            node.update(kept)
        elif key not in FORMS:
            return
        _fill(node, key, value, self.values)

    def _statuses(self, document: dict[str, Any]) -> None:
        """Each response whose status a key fills moves to the profile's status (or statuses)."""
        for _path, _method, operation in _operations(document):
            responses = operation.get("responses")
            if not isinstance(responses, dict):
                continue
            moved: dict[str, Any] = {}
            for status, response in responses.items():
                statuses = self._statuses_of(document, response) or [status]
                for new in statuses:
                    moved.setdefault(str(new), response)
            operation["responses"] = moved

    def _statuses_of(self, document: dict[str, Any], response: Any) -> list[str]:
        """The statuses the keys of a response give it, each key's in order (none: unmarked)."""
        for node in (response, resolve(document, response, strict=False)):
            found: list[str] = []
            for key in marks(node):
                value = self.values.value(key)
                if rule_of(key) != STATUS or value is _MISSING:
                    continue
                if VALUE_MARK not in node or isinstance(node[VALUE_MARK], dict):
                    _fill(node, key, value, self.values)
                given = value if isinstance(value, list | tuple) else [value]
                found += [str(v) for v in given if str(v) not in found]
            if found:
                return found
        return []


@dataclass(frozen=True)
class Form:
    """One form a structural choice gives an element: its schema, and how a value of the
    contract's form (an example, a corpus body) reads in it, and back."""

    schema: Callable[[Values], dict[str, Any]]
    value: Callable[[Any], Any]
    back: Callable[[Any], Any]


def _pointer_to_dotted(value: Any) -> Any:
    if not isinstance(value, str) or (value and not value.startswith("/")):
        return value
    return ".".join(t.replace("~1", "/").replace("~0", "~") for t in value.split("/")[1:])


def _dotted_to_pointer(value: Any) -> Any:
    if not isinstance(value, str) or value.startswith("/"):
        return value
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in value.split(".") if t)


def _map_to_entries(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    return [{"path": path, "keys": keys} for path, keys in value.items()]


def _entries_to_map(value: Any) -> Any:
    if not isinstance(value, list) or not all(isinstance(e, dict) and "path" in e for e in value):
        return value
    return {entry["path"]: entry.get("keys") for entry in value}


SEGMENT_OPS = {"set": "add", "add": "add", "delete": "remove"}
PATCH_OPS = {"add": "set", "replace": "set", "remove": "delete"}


def _segments_to_patch(value: Any) -> Any:
    if not isinstance(value, dict) or not isinstance(value.get("path"), list):
        return value
    path = "".join("/" + str(s).replace("~", "~0").replace("/", "~1") for s in value["path"])
    op = str(value.get("op"))
    return {**value, "op": SEGMENT_OPS.get(op, op), "path": path}


def _patch_to_segments(value: Any) -> Any:
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        return value
    if value.get("op") not in PATCH_OPS:
        return value
    segments = [t.replace("~1", "/").replace("~0", "~") for t in value["path"].split("/")[1:]]
    return {**value, "op": PATCH_OPS[value["op"]], "path": segments}


DOTTED_PATH: dict[str, Any] = {
    "type": "string",
    "pattern": r"^([^.]+(\.[^.]+)*)?$",
    "description": "A dotted path (economy.secretSeed); the root is the empty string.",
}


def _key_order_entries(values: Values) -> dict[str, Any]:
    path: dict[str, Any] = (
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


def _paging_parameter(kind: str, first: int) -> Callable[[Values], dict[str, Any]]:
    """The query parameter that pages by ``kind`` (offset or page) instead of a cursor."""

    def parameter(values: Values) -> dict[str, Any]:
        return {
            "name": values.value(f"experiment_payload.{kind}_param"),
            "in": "query",
            "required": False,
            "description": "The page number; the first page is 1."
            if kind == "page"
            else "How many items to skip.",
            "schema": {"type": "integer", "minimum": first},
        }

    return parameter


PATH_KEY = "bodies.path_syntax"
# key -> its value -> the form the element takes (a value not listed: the contract's own form).
FORMS: dict[str, dict[Any, Form]] = {
    PATH_KEY: {
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
    "bodies.patch.base_hash_transport": {},  # "if-match": the field moves (_moved_out)
}
IF_MATCH: dict[str, Any] = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'The contentHash the patch was made from, as an entity tag: "<hash>".',
    "schema": {"type": "string", "pattern": '^"[^"]*"$'},
    MARK: "bodies.patch.base_hash_transport",
}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _schema_chain(document: dict[str, Any], schema: Any) -> list[Any]:
    """A schema, what its ``$ref`` points to, and its ``allOf`` branches (resolved)."""
    chain = [schema]
    resolved = resolve(document, schema, strict=False)
    if resolved is not schema:
        chain.append(resolved)
    if isinstance(resolved, dict):
        for branch in resolved.get("allOf", []):
            chain += _schema_chain(document, branch)
    return chain


def _is_schema(node: dict[str, Any]) -> bool:
    """A schema object (not a parameter, response, media type or the components map)."""
    return "in" not in node and "content" not in node and "schemas" not in node


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document.get("paths", {}).items():
        for method in HTTP_METHODS:
            if isinstance(item, dict) and method in item:
                yield path, method, item[method]


def _body_schema(document: dict[str, Any], operation: dict[str, Any]) -> Any:
    body = resolve(document, operation.get("requestBody"), strict=False)
    media = (body or {}).get("content", {}).get("application/json") if body else None
    return None if media is None else media.get("schema")


def specialise(document: dict[str, Any], profile: Profile) -> dict[str, Any]:
    """A new OpenAPI document: ``document`` (the contract) in the terms ``profile`` declares."""
    return _Specialiser(document, Values.of(profile)).run()


def declared_keys(document: dict[str, Any], profile: Profile) -> dict[str, Any]:
    """Each profile key marked in ``document`` whose value in ``profile`` is not the default:
    what makes the specialised document differ from the contract."""
    values = Values.of(profile)
    keys = sorted({key for node in _nodes_of(document) for key in marks(node)})
    return {key: values.value(key) for key in keys if values.changed(key)}


def document_sha256(document: dict[str, Any]) -> str:
    """A digest of a document's content (canonical JSON), whatever its formatting."""
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _nodes_of(node: Any) -> Iterator[Any]:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _nodes_of(child)


def default_profile() -> Profile:
    """The profile with every default and made-up credentials: the contract's own choices."""

    return parse(DEFAULT_PROFILE, source="<the default profile>")


# ------------------------------------------------------------------ one request, both ways


@dataclass(frozen=True)
class Renamer:
    """Header, query and body names of one request between the contract's and a target's."""

    contract: dict[str, Any]
    values: Values

    @classmethod
    def of(cls, contract: dict[str, Any], profile: Profile) -> Renamer:
        return cls(contract, Values.of(profile))

    def parameter_names(self, operation_id: str, where: str, to_target: bool) -> dict[str, str]:
        """Lowercase parameter name on one side -> its name on the other, for ``where``."""
        names: dict[str, str] = {}
        for _p, _m, operation in _operations(self.contract):
            if operation.get("operationId") != operation_id:
                continue
            for entry in operation.get("parameters", []):
                parameter = resolve(self.contract, entry, strict=False)
                if parameter.get("in") != where:
                    continue
                ours = str(parameter["name"])
                theirs = ours
                for key in marks(parameter):
                    value = self.values.value(key)
                    if rule_of(key) == NAME and isinstance(value, str) and value:
                        theirs = value
                before, after = (ours, theirs) if to_target else (theirs, ours)
                names[before.lower()] = after
        return names

    def body(self, operation_id: str, body: Any, to_target: bool) -> Any:
        """A request body in the target's names (``to_target``) or back in the contract's."""
        operation = next(
            (op for _p, _m, op in _operations(self.contract) if op["operationId"] == operation_id),
            None,
        )
        schema = None if operation is None else _body_schema(self.contract, operation)
        if schema is None:
            return body
        if to_target:
            specialiser = _Specialiser(self.contract, self.values)
            return specialiser.instance(schema, body)
        return self._back(schema, body)

    def _back(self, schema: Any, body: Any) -> Any:
        """The inverse walk: at each level, a target name maps back to the contract's and a
        value of the target's form to the contract's form."""
        body = self._form_back(schema, body)
        if isinstance(body, list):
            items = _items_of(self.contract, schema)
            return body if items is None else [self._back(items, v) for v in body]
        if not isinstance(body, dict):
            return self._value_back(schema, body)
        properties = property_nodes(self.contract, schema)
        extra = _extra_of(self.contract, schema)
        resolved = resolve(self.contract, schema, strict=False)
        names = resolved.get("propertyNames") if isinstance(resolved, dict) else None
        theirs = {self._target_name(name, node): name for name, node in properties.items()}
        out: dict[str, Any] = {}
        for key, value in body.items():
            ours = str(theirs.get(key, key))
            if key not in theirs and names is not None:
                ours = str(self._value_back(names, key))
            node = properties.get(ours, extra) if key in theirs else extra
            out[ours] = value if node is None else self._back(node, value)
        return out

    def _target_name(self, name: str, node: Any) -> str:
        return _Specialiser(self.contract, self.values).name_of(name, node)

    def _value_back(self, schema: Any, value: Any) -> Any:
        for node in _schema_chain(self.contract, schema):
            for key in marks(node):
                if rule_of(key) == ENUM_VALUE and value == self.values.value(key):
                    return self.values.default(key)
                if rule_of(key) == PATH_SYNTAX:
                    return self._form_back(node, value)
        return value

    def _form_back(self, schema: Any, value: Any) -> Any:
        for node in _schema_chain(self.contract, schema):
            for key in marks(node):
                given = self.values.value(key)
                if key in FORMS and given in FORMS[key]:
                    return FORMS[key][given].back(value)
        return value

    def headers(
        self, operation_id: str, headers: dict[str, Any], to_target: bool
    ) -> dict[str, Any]:
        names = self.parameter_names(operation_id, "header", to_target)
        return {names.get(k.lower(), k): v for k, v in headers.items()}

    def query(self, operation_id: str, query: dict[str, Any], to_target: bool) -> dict[str, Any]:
        names = self.parameter_names(operation_id, "query", to_target)
        return {names.get(k.lower(), k): v for k, v in query.items()}
