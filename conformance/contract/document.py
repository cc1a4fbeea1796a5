"""The OpenAPI contract at run time: where it lives, its digest, its operations and its doubts.

The document is data only (``openapi/openapi.yaml``; the wheel carries a copy as
``conformance/_contract/openapi.yaml``). Elements the specification does not show carry
``x-spec: not-shown`` or ``x-spec: inferred``; ``doubt_of`` reads those marks so the fuzz stage
can tell a failure on a stated element from one on a gap the contract filled.

Locations understood by ``doubt_of`` (``<path>`` is a dotted property path; arrays are entered
through their items, and ``allOf``, ``oneOf``, ``anyOf`` branches are searched in order)::

    operation
    parameter:<in>:<name>               e.g. parameter:header:server-id (also a credential,
                                        e.g. parameter:header:authorization)
    request-body[:<path>]               e.g. request-body:baseHash
    response:<status>                   e.g. response:304
    response:<status>:header:<name>     e.g. response:200:header:ETag
    response:<status>:media             the JSON media type itself (not its schema)

A status the operation does not list is looked up in its range (``4XX``), then ``default``.
    response:<status>:body[:<path>]     e.g. response:200:body:polling.jitterRatio

A mark applies to its element and to everything inside it without a mark of its own, so the
most specific mark on the way from the element up to the operation wins (property, schema, media
type, response or parameter, operation; a mark beside a ``$ref`` beats the target's).
``stated`` (or no mark at all) means no doubt. A location the contract does not describe is
``not-shown``: the contract holds everything the specification shows.
"""

from __future__ import annotations

import hashlib
import pathlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache

import yaml

from conformance.json_types import JsonObject, JsonValue

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
DOUBTS = ("not-shown", "inferred")
NOT_SHOWN = "not-shown"
STATED = "stated"
_PACKAGED = pathlib.Path(__file__).parent.parent / "_contract" / "openapi.yaml"
_SOURCE = pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"
Node = dict[str, object]  # an object of the OpenAPI document


@dataclass(frozen=True)
class Operation:
    """One operation of the contract. ``spec_status`` is the operation's own ``x-spec``."""

    operation_id: str
    method: str  # upper case
    path: str
    spec_status: str  # "stated" | "inferred" | "not-shown"


def contract_path() -> pathlib.Path:
    """The packaged copy when installed from a wheel, else the repository's ``openapi/``."""
    for candidate in (_PACKAGED, _SOURCE):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"the OpenAPI contract is missing: looked at {_PACKAGED} and {_SOURCE}")


try:  # libyaml's parser when PyYAML has it: the same document, parsed faster
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]


@cache
def _contract_bytes() -> bytes:
    return contract_path().read_bytes()


@cache
def load_contract() -> JsonObject:
    """The parsed contract. Cached: callers must not mutate it."""
    document: JsonValue = yaml.load(_contract_bytes(), Loader=_SafeLoader)
    if not isinstance(document, dict):
        raise ValueError(f"{contract_path()} is not a mapping")
    return document


def contract_sha256() -> str:
    """Lowercase hex SHA-256 of the contract file's bytes (recorded in every report)."""
    return hashlib.sha256(_contract_bytes()).hexdigest()


def operations() -> list[Operation]:
    """Every operation, in document order."""
    return [
        Operation(
            operation_id=str(op["operationId"]),
            method=method.upper(),
            path=path,
            spec_status=str(op.get("x-spec", STATED)),
        )
        for path, method, op in _iter_operations(load_contract())
    ]


def doubt_of(
    operation_id: str, location: str, document: Mapping[str, object] | None = None
) -> str | None:
    """``"not-shown"`` or ``"inferred"`` when the element at ``location`` is a gap; else None.

    ``document``: the contract as a target profile specialised it
    (``conformance.contract.specialisation``), whose declared elements (``x-declared: true``)
    are no gap; default: the contract itself. Raises ``KeyError`` for an unknown operation id
    and ``ValueError`` for a malformed location.
    """
    document = load_contract() if document is None else document
    operation = _operation_object(document, operation_id)
    chain = _chain(document, operation, location)
    if chain is None:
        return NOT_SHOWN
    for element in chain:
        if element.get("x-declared") is True:
            return None  # the target's declared value (conformance.contract.specialisation)
        mark = element.get("x-spec")
        if mark is not None:
            return str(mark) if mark in DOUBTS else None
    return None


def chain_of(
    operation_id: str, location: str, document: Mapping[str, object] | None = None
) -> list[Node] | None:
    """The elements from the one at ``location`` up to the operation, innermost first (None:
    the contract does not describe it). Raises as ``doubt_of`` does."""
    document = load_contract() if document is None else document
    return _chain(document, _operation_object(document, operation_id), location)


def _node(value: object) -> Node:
    """``value`` as an object of the document; anything else is a contract out of shape."""
    if not isinstance(value, dict):
        raise TypeError(f"not an object of the OpenAPI document: {value!r:.80}")
    return value


def _array(value: object) -> list[object]:
    """``value`` as an array of the document; anything else is a contract out of shape."""
    if not isinstance(value, list):
        raise TypeError(f"not an array of the OpenAPI document: {value!r:.80}")
    return value


def _iter_operations(document: Mapping[str, object]) -> Iterator[tuple[str, str, Node]]:
    for path, item in _node(document.get("paths", {})).items():
        entry = _node(item)
        for method in HTTP_METHODS:
            if method in entry:
                yield path, method, _node(entry[method])


def _operation_object(document: Mapping[str, object], operation_id: str) -> Node:
    for _path, _method, operation in _iter_operations(document):
        if operation.get("operationId") == operation_id:
            return operation
    raise KeyError(f"no operation {operation_id!r} in the contract")


def resolve(document: Mapping[str, object], node: object, strict: bool = True) -> object:
    """Follow a local ``$ref`` (repeatedly); other nodes come back unchanged. A reference that
    is not local, or comes round again, is a ``ValueError`` (``strict``) or left as it is."""
    seen: set[str] = set()
    while isinstance(node, dict) and "$ref" in node:
        reference = str(node["$ref"])
        if not reference.startswith("#/") or reference in seen:
            if not strict:
                return node
            raise ValueError(f"cannot resolve {reference!r}")
        seen.add(reference)
        target: object = document
        for token in reference[2:].split("/"):
            if not isinstance(target, Mapping):
                raise TypeError(f"cannot resolve {reference!r}: {token!r} is not in an object")
            target = target[token.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def _with_target(document: Mapping[str, object], node: Node) -> list[Node]:
    """A node, then what its ``$ref`` points to (a mark beside the ``$ref`` wins)."""
    if "$ref" in node:
        return [node, _node(resolve(document, node))]
    return [node]


def _chain(document: Mapping[str, object], operation: Node, location: str) -> list[Node] | None:
    """The elements from the one at ``location`` up to the operation, or None when absent."""
    kind, _, rest = location.partition(":")
    if kind == "operation" and not rest:
        return [operation]
    if kind == "parameter":
        where, _, name = rest.partition(":")
        if not where or not name:
            raise ValueError(f"malformed location {location!r}: use parameter:<in>:<name>")
        return _parameter_chain(document, operation, where, name)
    if kind == "request-body":
        if "requestBody" not in operation:
            return None
        body = _node(resolve(document, operation["requestBody"]))
        inner = _media_schema_chain(document, body, rest)
        return None if inner is None else [*inner, body, operation]
    if kind == "response":
        return _response_chain(document, operation, rest, location)
    raise ValueError(f"malformed location {location!r}: see conformance.contract.document")


def _parameter_chain(
    document: Mapping[str, object], operation: Node, where: str, name: str
) -> list[Node] | None:
    for entry in _array(operation.get("parameters", [])):
        parameter = _node(resolve(document, entry))
        matches_name = str(parameter.get("name", "")).lower() == name.lower()
        if parameter.get("in") == where and matches_name:
            schema = _node(parameter.get("schema", {}))
            return [*_with_target(document, schema), parameter, operation]
    scheme = _credential_scheme(document, operation, where, name)
    return None if scheme is None else [scheme, operation]


def _credential_scheme(
    document: Mapping[str, object], operation: Node, where: str, name: str
) -> Node | None:
    """The security scheme of ``operation`` sent as parameter ``name`` in ``where``, if any."""
    schemes = _node(_node(document.get("components", {})).get("securitySchemes", {}))
    requirements = _array(operation.get("security", document.get("security", [])))
    for requirement in requirements:
        for scheme_name in _node(requirement):
            scheme = _node(resolve(document, schemes.get(scheme_name, {})))
            if scheme.get("type") == "apiKey":
                sent_as = (scheme.get("in"), str(scheme.get("name", "")).lower())
            elif scheme.get("type") == "http":
                sent_as = ("header", "authorization")
            else:
                continue
            if sent_as == (where, name.lower()):
                return scheme
    return None


def _response_chain(
    document: Mapping[str, object], operation: Node, rest: str, location: str
) -> list[Node] | None:
    status, _, tail = rest.partition(":")
    if not status:
        raise ValueError(f"malformed location {location!r}: use response:<status>[...]")
    responses = _node(operation.get("responses", {}))
    # An exact status, else its range (``4XX``), else ``default``: as OpenAPI matches an answer.
    found = next((s for s in (status, f"{status[:1]}XX", "default") if s in responses), None)
    if found is None:
        return None
    response = _node(resolve(document, responses[found]))
    up = [response, operation]
    if not tail:
        return up
    part, _, detail = tail.partition(":")
    if part == "header":
        for header_name, header in _node(response.get("headers", {})).items():
            if header_name.lower() == detail.lower():
                resolved = _node(resolve(document, header))
                schema = _node(resolved.get("schema", {}))
                return [*_with_target(document, schema), resolved, *up]
        return None
    if part == "media":
        media = json_media_of(response)
        return [media, *up] if isinstance(media, dict) else up
    if part == "body":
        inner = _media_schema_chain(document, response, detail)
        return None if inner is None else [*inner, *up]
    raise ValueError(
        f"malformed location {location!r}: after the status use header:, media or body"
    )


def json_media_of(holder: Node) -> object:
    """The JSON media type entry of a response or request body: ``application/json``, else the
    first ``application/*+json`` (RFC 6839: an error media type a profile declares, such as
    ``application/problem+json``, is where a specialised contract keeps the error body)."""
    content = _node(holder.get("content", {}))
    if "application/json" in content:
        return content["application/json"]
    for name, media in content.items():
        kind, _, subtype = str(name).split(";", 1)[0].strip().lower().partition("/")
        if kind == "application" and subtype.endswith("+json"):
            return media
    return None


def _media_schema_chain(
    document: Mapping[str, object], holder: Node, path: str
) -> list[Node] | None:
    """Schemas from the property at dotted ``path`` up to the JSON media type of ``holder``."""
    media = json_media_of(holder)
    if not isinstance(media, dict) or "schema" not in media:
        return None
    current = _node(media["schema"])
    chain = [*_with_target(document, current), media]
    for name in filter(None, path.split(".")):
        found = _property(document, current, name)
        if found is None:
            return None
        hops, current = found
        chain = [*hops, *chain]
    return chain


def _property(
    document: Mapping[str, object], schema: Node, name: str
) -> tuple[list[Node], Node] | None:
    """The hops (innermost first) from property ``name`` up to ``schema``, and the property."""
    schema = _node(resolve(document, schema))
    properties = _node(schema.get("properties", {}))
    if name in properties:
        node = _node(properties[name])
        return _with_target(document, node), node
    items = schema.get("items")
    branches: list[object] = [items] if isinstance(items, dict) else []
    for combinator in ("allOf", "oneOf", "anyOf"):
        branches += _array(schema.get(combinator, []))
    for branch in branches:
        below = _property(document, _node(branch), name)
        if below is not None:
            hops, node = below
            return [*hops, *_with_target(document, _node(branch))], node
    return None
