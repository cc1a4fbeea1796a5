"""The contract in a target's terms: the OpenAPI document specialised by a target profile.

``specialise(document, profile)`` returns a new document in which every element a profile key
fills (``conformance.contract.profile_keys``: names, statuses, enums, bounds) carries the
target's value, and every structural choice its form (``conformance.contract.forms``). Each
element filled keeps its ``x-profile-key`` and gains ``x-profile-value`` (the value used); where
that value differs from the contract's own (the reference server's choice, the profile's
default) it also gains ``x-declared: true`` beside its ``x-spec`` (which still says where the
element came from). Whether a constraint is interface or drop-in is the profile's to say
(``conformance.contract.levels``), not the document's. Examples, schema examples and
defaults, ``required`` lists and the request bodies of links follow.

``declared_keys`` lists what makes a target's document differ from the contract,
``document_sha256`` digests a document, ``default_profile`` is the contract's own choices.
One request is translated both ways by ``conformance.contract.renamer.Renamer``.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, TypeGuard

from conformance.contract.document import resolve
from conformance.contract.forms import FORMS, IF_MATCH
from conformance.contract.profile_keys import (
    BASE_HASH_TRANSPORT,
    ENUM,
    ENUM_VALUE,
    MARK,
    MAX_ITEMS,
    MAXIMUM,
    MISSING,
    NAME,
    PATH_SYNTAX,
    PROPERTY,
    REQUIRED_ONLY_WHEN,
    STATUS,
    VALUE_MARK,
    Values,
    fill,
    marks,
    rule_of,
)
from conformance.contract.schema_walk import (
    body_schema,
    is_schema,
    operation_ids,
    operations_of,
    property_nodes,
    schema_chain,
    translate_instance,
)
from conformance.json_types import JsonObject
from conformance.profile import parse

if TYPE_CHECKING:
    from conformance.profile import Profile

# Only what a profile cannot default: the names and statuses all come from the defaults.
DEFAULT_PROFILE = """\
profile_version: 1
credentials: {pat: "-", sdk_keys: [{key: "-", environments: [development]}]}
project: {application_id: 1, environments: {development: 1}}
"""


ENVIRONMENT_HEADER_KEY = "experiment_payload.environment_header"
EXPERIMENT_ENVIRONMENT_REF = {"$ref": "#/components/parameters/ExperimentEnvironmentId"}


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


class Specialiser:
    """One walk of the contract in the terms of one target's ``Values``."""

    def __init__(self, contract: JsonObject, values: Values) -> None:
        self.contract = contract  # the original: examples are walked along its schemas
        self.values = values

    # names and values an original node maps to
    def name_of(self, name: str, node: object) -> str:
        for key in marks(node):
            if rule_of(key) == PROPERTY:
                value = self.values.value(key)
                if isinstance(value, str) and value:
                    return value
        return name

    def value_of(self, schema: object, value: object) -> object:
        """A scalar of an example or default, as the target's enums and bounds have it."""
        for node in schema_chain(self.contract, schema):
            for key in marks(node):
                kind, new, default = rule_of(key), self.values.value(key), self.values.default(key)
                if new is MISSING:
                    continue
                if kind == ENUM_VALUE and value == default:
                    return new
                if kind == ENUM and isinstance(default, list) and value in default and new:
                    index = default.index(value)
                    if isinstance(new, list | tuple):
                        return new[index] if index < len(new) else new[0]
                if kind == MAXIMUM and _number(value) and _number(new) and value > new:
                    return new
                if kind == PATH_SYNTAX and isinstance(value, str):
                    return FORMS[key][new].value(value) if new in FORMS[key] else value
        return value

    def shape_of(self, schema: object, value: object) -> object:
        """An object or array of an example, in the form the target's choices give it."""
        for node in schema_chain(self.contract, schema):
            for key in marks(node):
                if key not in FORMS or rule_of(key) == PATH_SYNTAX:
                    continue
                form = FORMS[key].get(self.values.value(key))
                if form is not None:
                    return form.value(value)
        return value

    def instance(self, schema: object, value: object) -> object:
        return translate_instance(
            self.contract, schema, value, self.name_of, self.value_of, self.shape_of
        )

    def moved_out(self, node: object) -> bool:
        """A body field the target takes elsewhere (the base hash as an If-Match header)."""
        return any(
            rule_of(key) == BASE_HASH_TRANSPORT and self.values.value(key) == "if-match"
            for key in marks(node)
        )

    # the walk
    def run(self) -> JsonObject:
        document = copy.deepcopy(self.contract)
        self._examples(document, self.contract)
        self._links(document)
        self._nodes(document)
        self._statuses(document)
        self._error_media(document)
        self._headers_for_moved_fields(document)
        self._experiment_environment(document)
        return document

    def _experiment_environment(self, document: JsonObject) -> None:
        """Experiment endpoints that take no environment input
        (``experiment_payload.environment_header: false``; spec 4.2 names none): their operations
        lose the environment header parameter, so no case sends it or asks for its refusal."""
        if self.values.value(ENVIRONMENT_HEADER_KEY) is not False:
            return
        paths = document.get("paths")
        if not isinstance(paths, dict):
            return
        for path, item in paths.items():
            if "/experiments" not in path or not isinstance(item, dict):
                continue
            for operation in item.values():
                given = operation.get("parameters") if isinstance(operation, dict) else None
                if isinstance(operation, dict) and isinstance(given, list):
                    operation["parameters"] = [p for p in given if p != EXPERIMENT_ENVIRONMENT_REF]

    def _error_media(self, document: JsonObject) -> None:
        """Error answers in the media type ``errors.media_type`` declares (problem+json, say),
        except on the configuration endpoints, whose responses are application/json (spec 4.1,
        read as binding their error answers too)."""
        media = self.values.value(ERROR_MEDIA_KEY)
        if not isinstance(media, str) or media == JSON_MEDIA:
            return
        for _path, _method, operation in operations_of(document):
            responses = operation.get("responses")
            if operation.get("operationId") in EXACT_MEDIA_OPERATIONS:
                continue
            if not isinstance(responses, dict):
                continue
            for status, response in responses.items():
                if not _error_status(str(status)):
                    continue
                resolved = copy.deepcopy(resolve(document, response, strict=False))
                content = resolved.get("content") if isinstance(resolved, dict) else None
                if not isinstance(content, dict) or JSON_MEDIA not in content:
                    continue
                entry = content.pop(JSON_MEDIA)
                if isinstance(entry, dict):
                    entry[MARK] = ERROR_MEDIA_KEY
                    fill(entry, ERROR_MEDIA_KEY, media, self.values)
                content[media] = entry
                responses[status] = resolved

    def _examples(self, new: object, old: object) -> None:
        """Examples follow renamed properties and values (walked along the original schemas)."""
        if isinstance(old, list) and isinstance(new, list):
            for n, o in zip(new, old, strict=True):
                self._examples(n, o)
            return
        if not isinstance(old, dict) or not isinstance(new, dict):
            return
        schema = old.get("schema") if "in" in old or "examples" in old or "example" in old else None
        if "schema" in old and isinstance(schema, dict):
            if "example" in old:
                new["example"] = self.instance(schema, old["example"])
            for name, example in (old.get("examples") or {}).items():
                if isinstance(example, dict) and "value" in example:
                    new["examples"][name]["value"] = self.instance(schema, example["value"])
        elif is_schema(old):
            for key in ("example", "default"):
                if key in old:
                    new[key] = self.instance(old, old[key])
        for key, value in old.items():
            if key not in ("example", "examples"):
                self._examples(new[key], value)

    def _links(self, document: JsonObject) -> None:
        """A link's request body names body fields: those follow their properties."""
        originals = operation_ids(self.contract)
        for operation in operation_ids(document).values():
            responses = operation.get("responses", {})
            for response in responses.values() if isinstance(responses, dict) else ():
                for link in (response.get("links") or {}).values():
                    body = link.get("requestBody")
                    target = originals.get(link.get("operationId"))
                    if not isinstance(body, dict) or target is None:
                        continue
                    schema = body_schema(self.contract, target)
                    fields = property_nodes(self.contract, schema)
                    link["requestBody"] = {
                        (self.name_of(k, fields[k]) if k in fields else k): v
                        for k, v in body.items()
                        if not (k in fields and self.moved_out(fields[k]))
                    }
                    if not link["requestBody"]:
                        del link["requestBody"]

    def _nodes(self, node: object) -> None:
        if isinstance(node, list):
            for item in node:
                self._nodes(item)
            return
        if not isinstance(node, dict):
            return
        for key in marks(node):
            self._apply(node, key)
        properties = node.get("properties")
        if isinstance(properties, dict) and is_schema(node):
            renamed: dict[str, object] = {}
            for name, child in properties.items():
                if self.moved_out(child) or self.absent(child):
                    continue
                new = self.name_of(name, child)
                for key in marks(child):
                    if rule_of(key) == PROPERTY and self.values.value(key) is not MISSING:
                        fill(child, key, new, self.values)
                renamed[new] = child
            node["properties"] = renamed
            if isinstance(node.get("required"), list):
                node["required"] = [
                    self.name_of(n, properties.get(n))
                    for n in node["required"]
                    if self._required(properties.get(n)) and not self.absent(properties.get(n))
                ]
        for key, value in node.items():
            if key not in ("example", "examples", "links"):
                self._nodes(value)

    def absent(self, node: object) -> bool:
        """A property whose name key the profile sets to null: the target has no such field
        (``errors.code_field: null``, an error body without a code)."""
        return any(
            rule_of(key) == PROPERTY and self.values.value(key) is None for key in marks(node)
        )

    def _required(self, node: object) -> bool:
        for key in marks(node):
            if key in REQUIRED_ONLY_WHEN:
                other, value = REQUIRED_ONLY_WHEN[key]
                given = self.values.value(other)
                return given is MISSING or given == value
        return True

    def _headers_for_moved_fields(self, document: JsonObject) -> None:
        """An operation whose body field moved to a header gets that header as a parameter."""
        originals = operation_ids(self.contract)
        for _p, _m, operation in operations_of(document):
            original = originals.get(operation["operationId"], {})
            schema = body_schema(self.contract, original)
            for child in property_nodes(self.contract, schema).values() if schema else ():
                for key in marks(child):
                    if rule_of(key) == BASE_HASH_TRANSPORT and self.moved_out(child):
                        parameter: dict[str, object] = copy.deepcopy(dict(IF_MATCH))
                        fill(parameter, key, self.values.value(key), self.values)
                        parameters = operation.setdefault("parameters", [])
                        if isinstance(parameters, list):
                            parameters.append(parameter)

    def _apply(self, node: dict[str, object], key: str) -> None:
        kind, value = rule_of(key), self.values.value(key)
        if value is MISSING or kind in (None, PROPERTY, STATUS):
            return  # properties are renamed by their parent, statuses per operation
        enum = node.get("enum")
        if kind == NAME and "in" in node and isinstance(value, str) and value:
            node["name"] = value
        elif kind == ENUM and isinstance(enum, list) and isinstance(value, list | tuple):
            node["enum"] = list(value)
            if "default" in node and node["default"] not in value:
                node["default"] = value[0]
        elif kind == ENUM_VALUE and isinstance(enum, list):
            default = self.values.default(key)
            node["enum"] = [value if item == default else item for item in enum]
        elif kind in (MAXIMUM, MAX_ITEMS) and kind is not None and kind in node:
            if value is None:  # no bound declared (experiments.weight_total: null)
                node.pop(kind)
            else:
                node[kind] = value
        elif key in FORMS and value in FORMS[key]:
            kept = {k: v for k, v in node.items() if k.startswith("x-")}
            node.clear()
            node.update(FORMS[key][value].schema(self.values))
            node.update(kept)
        elif key not in FORMS:
            return
        fill(node, key, value, self.values)

    def _statuses(self, document: JsonObject) -> None:
        """Each response whose status a key fills moves to the profile's status (or statuses)."""
        for _path, _method, operation in operations_of(document):
            responses = operation.get("responses")
            if not isinstance(responses, dict):
                continue
            moved: dict[str, object] = {}
            for status, response in responses.items():
                statuses = self._statuses_of(document, response) or [status]
                for new in statuses:
                    moved.setdefault(str(new), response)
            operation["responses"] = moved

    def _statuses_of(self, document: JsonObject, response: object) -> list[str]:
        """The statuses the keys of a response give it, each key's in order (none: unmarked)."""
        resolved: object = resolve(document, response, strict=False)
        for node in (response, resolved):
            found: list[str] = []
            for key in marks(node):
                value = self.values.value(key)
                if rule_of(key) != STATUS or value is MISSING or not isinstance(node, dict):
                    continue
                if VALUE_MARK not in node or isinstance(node[VALUE_MARK], dict):
                    fill(node, key, value, self.values)
                given = value if isinstance(value, list | tuple) else [value]
                found += [str(v) for v in given if str(v) not in found]
            if found:
                return found
        return []


ERROR_MEDIA_KEY = "errors.media_type"
JSON_MEDIA = "application/json"
ERROR_STATUS = 400
EXACT_MEDIA_OPERATIONS = ("createConfiguration", "patchConfiguration")  # spec 4.1


def _error_status(status: str) -> bool:
    """An error answer's key in a responses map: 400 and up, a 4XX or 5XX range, default."""
    if status.isdigit():
        return int(status) >= ERROR_STATUS
    return status.upper() in ("4XX", "5XX", "DEFAULT")


def specialise(document: JsonObject, profile: Profile) -> JsonObject:
    """A new OpenAPI document: ``document`` (the contract) in the terms ``profile`` declares."""
    return Specialiser(document, Values.of(profile)).run()


def declared_keys(document: Mapping[str, object], profile: Profile) -> dict[str, object]:
    """Each profile key marked in ``document`` whose value in ``profile`` is not the default:
    what makes the specialised document differ from the contract."""
    values = Values.of(profile)
    keys = sorted({key for node in _nodes_of(document) for key in marks(node)})
    return {key: values.value(key) for key in keys if values.changed(key)}


def document_sha256(document: Mapping[str, object]) -> str:
    """A digest of a document's content (canonical JSON), whatever its formatting."""
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _nodes_of(node: object) -> Iterator[object]:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _nodes_of(child)


def default_profile() -> Profile:
    """The profile with every default and made-up credentials: the contract's own choices."""

    return parse(DEFAULT_PROFILE, source="<the default profile>")
