"""The contract document walked for its tests: every example with the schema it must validate
against, every node, the operations and their parameters and responses, a schema's validator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import referencing

from conformance.contract import document as contract

CONTRACT_URI = "urn:rces:contract"

# Keys under which a Schema Object holds further Schema Objects (one schema, or a map/list).
_SCHEMA_ONE = ("items", "additionalProperties", "propertyNames", "contentSchema", "not")
_SCHEMA_MAP = ("properties", "$defs", "patternProperties")
_SCHEMA_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")


def pointer(tokens: tuple[str, ...]) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def validator(registry: referencing.Registry[Any], tokens: tuple[str, ...]) -> Any:
    schema = {"$ref": f"{CONTRACT_URI}#{pointer(tokens)}"}
    return jsonschema.Draft202012Validator(
        schema, registry=registry, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def resolve(document: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document
        for token in node["$ref"][2:].split("/"):
            target = target[token]
        node = target
    return node


def schema_examples(
    node: Any, tokens: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """(schema location, label, example) for every example inside a Schema Object tree."""
    if not isinstance(node, dict):
        return
    if "example" in node:
        yield tokens, pointer((*tokens, "example")), node["example"]
    for index, value in enumerate(node.get("examples", [])):
        yield tokens, pointer((*tokens, "examples", str(index))), value
    for key in _SCHEMA_ONE:
        yield from schema_examples(node.get(key), (*tokens, key))
    for key in _SCHEMA_MAP:
        for name, child in node.get(key, {}).items():
            yield from schema_examples(child, (*tokens, key, name))
    for key in _SCHEMA_LIST:
        for index, child in enumerate(node.get(key, [])):
            yield from schema_examples(child, (*tokens, key, str(index)))


def holder_examples(
    document: dict[str, Any], node: Any, tokens: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """Examples of every object that holds a ``schema`` (media types, parameters, headers)."""
    if isinstance(node, list):
        for index, child in enumerate(node):
            yield from holder_examples(document, child, (*tokens, str(index)))
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("schema"), dict):
        schema_tokens = (*tokens, "schema")
        if "example" in node:
            yield schema_tokens, pointer((*tokens, "example")), node["example"]
        for name, example in node.get("examples", {}).items():
            value = resolve(document, example)["value"]
            yield schema_tokens, pointer((*tokens, "examples", name)), value
        yield from schema_examples(node["schema"], schema_tokens)
    for key, child in node.items():
        if key not in ("schema", "examples", "example", "links"):
            yield from holder_examples(document, child, (*tokens, key))


def all_examples(document: dict[str, Any]) -> list[tuple[tuple[str, ...], str, Any]]:
    found = list(holder_examples(document, document.get("paths", {}), ("paths",)))
    components = document.get("components", {})
    for section in ("parameters", "headers", "responses", "requestBodies"):
        holder = components.get(section, {})
        found += holder_examples(document, holder, ("components", section))
    for name, schema in components.get("schemas", {}).items():
        found += schema_examples(schema, ("components", "schemas", name))
    return found


def nodes(node: Any, tokens: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield tokens, node
    if isinstance(node, dict):
        for key, child in node.items():
            yield from nodes(child, (*tokens, str(key)))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from nodes(child, (*tokens, str(index)))


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in contract.HTTP_METHODS:
                yield path, method, operation


def operation(document: dict[str, Any], operation_id: str) -> dict[str, Any]:
    for _path, _method, operation in operations(document):
        if operation["operationId"] == operation_id:
            return operation
    raise KeyError(operation_id)


def parameters(document: dict[str, Any], operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    resolved = (resolve(document, p) for p in operation.get("parameters", []))
    return {p["name"]: p for p in resolved}


def responses(document: dict[str, Any], operation_id: str) -> dict[str, dict[str, Any]]:
    found = operation(document, operation_id)
    return {code: resolve(document, r) for code, r in found["responses"].items()}
