"""Walking the contract's schemas: the properties, items and operations a schema or document
declares, and an instance (an example, a request body) walked along a schema.

Every function takes the whole document (to follow local ``$ref``) and a node of it; a node
that is not what the walk expects (not an object, no ``properties``) contributes nothing.
``translate_instance`` is the one walk both directions of ``specialisation`` and ``renamer``
share: it renames object keys, maps scalars and reshapes objects and arrays as it goes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from conformance.contract.document import resolve
from conformance.json_types import JsonObject

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

NameOf = Callable[[str, object], str]  # (property name, property node) -> the name to use
ValueOf = Callable[[object, object], object]  # (schema node, value) -> the value to use


def _branches(schema: Mapping[str, object]) -> list[object]:
    """The ``allOf``, ``oneOf`` and ``anyOf`` branches of a schema, in that order."""
    found: list[object] = []
    for combinator in ("allOf", "oneOf", "anyOf"):
        branches = schema.get(combinator, [])
        if isinstance(branches, list):
            found += branches
    return found


def property_nodes(document: JsonObject, schema: object) -> dict[str, object]:
    """Every property a schema declares, through ``$ref`` and ``allOf``/``oneOf``/``anyOf``."""
    resolved: object = resolve(document, schema, strict=False)
    if not isinstance(resolved, dict):
        return {}
    found: dict[str, object] = {}
    for branch in _branches(resolved):
        found.update(property_nodes(document, branch))  # a later branch is the more specific
    found.update(resolved.get("properties", {}))
    return found


def items_of(document: JsonObject, schema: object) -> object:
    """The ``items`` schema of an array schema (through ``$ref`` and branches), or None."""
    resolved: object = resolve(document, schema, strict=False)
    if not isinstance(resolved, dict):
        return None
    if isinstance(resolved.get("items"), dict):
        return resolved["items"]
    for branch in _branches(resolved):
        found = items_of(document, branch)
        if found is not None:
            return found
    return None


def extra_of(document: JsonObject, schema: object) -> object:
    """The ``additionalProperties`` schema of an object schema, or None."""
    resolved: object = resolve(document, schema, strict=False)
    extra = resolved.get("additionalProperties") if isinstance(resolved, dict) else None
    return extra if isinstance(extra, dict) else None


def property_names_of(document: JsonObject, schema: object) -> object:
    """The ``propertyNames`` schema of an object schema, or None."""
    resolved: object = resolve(document, schema, strict=False)
    return resolved.get("propertyNames") if isinstance(resolved, dict) else None


def _same(schema: object, value: object) -> object:
    return value


def translate_instance(
    document: JsonObject,
    schema: object,
    instance: object,
    name_of: NameOf,
    value_of: ValueOf,
    shape_of: ValueOf = _same,
) -> object:
    """``instance`` walked along ``schema`` of ``document``: each object key renamed by
    ``name_of`` (or, under ``propertyNames``, mapped by ``value_of``), each scalar mapped by
    ``value_of``, and each object or array, once walked, given its form by ``shape_of``; what
    the schema does not describe is kept as it is."""

    def again(node: object, value: object) -> object:
        return translate_instance(document, node, value, name_of, value_of, shape_of)

    if isinstance(instance, dict):
        properties = property_nodes(document, schema)
        extra = extra_of(document, schema)
        names = property_names_of(document, schema)
        out: dict[object, object] = {}
        for key, value in instance.items():
            node = properties.get(key, extra)
            name: object
            if key in properties:
                name = name_of(key, node)
            else:
                name = key if names is None else value_of(names, key)
            out[name] = value if node is None else again(node, value)
        return shape_of(schema, out)
    if isinstance(instance, list):
        items = items_of(document, schema)
        if items is None:
            return instance
        return shape_of(schema, [again(items, v) for v in instance])
    return value_of(schema, instance)


def schema_chain(document: JsonObject, schema: object) -> list[object]:
    """A schema, what its ``$ref`` points to, and its ``allOf`` branches (resolved)."""
    chain = [schema]
    resolved: object = resolve(document, schema, strict=False)
    if resolved is not schema:
        chain.append(resolved)
    if isinstance(resolved, dict):
        for branch in resolved.get("allOf", []):
            chain += schema_chain(document, branch)
    return chain


def is_schema(node: Mapping[str, object]) -> bool:
    """A schema object (not a parameter, response, media type or the components map)."""
    return "in" not in node and "content" not in node and "schemas" not in node


def operations_of(
    document: Mapping[str, object],
) -> Iterator[tuple[str, str, dict[str, object]]]:
    """(path, method, operation object) for every operation of ``document``."""
    paths = document.get("paths", {})
    for path, item in paths.items() if isinstance(paths, dict) else ():
        for method in HTTP_METHODS:
            if isinstance(item, dict) and method in item:
                yield path, method, item[method]


def operation_ids(document: Mapping[str, object]) -> dict[object, dict[str, object]]:
    """Each operation of ``document`` by its ``operationId``."""
    return {op["operationId"]: op for _p, _m, op in operations_of(document)}


def body_schema(document: JsonObject, operation: Mapping[str, object]) -> object:
    """The JSON schema of an operation's request body, or None."""
    body: object = resolve(document, operation.get("requestBody"), strict=False)
    if not body or not isinstance(body, dict):
        return None
    media = body.get("content", {}).get("application/json")
    return None if media is None else media.get("schema")
