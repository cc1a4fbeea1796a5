"""What a target's own OpenAPI (or Swagger 2) document says of its gap choices, for ``conformance
profile draft``: header and parameter names, body field names, success statuses, enums, bounds and
paging parameters, each a ``Finding`` marked *documented* with the operation and element that
showed it.

Operations are matched by method and path (a template's parameter names and any base path in
front of it do not matter). An element is read by its shape first (an enum of environment words,
the numeric bound of spec 4.3, the instance id's 128 characters, an array of objects with ``op``
and ``path``) and by its name only where no shape tells: a name alone is a guess the person
confirms like any other value. Vendor extensions (``x-...``) are never read: a document the kit
itself wrote must not be read back through its own marks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import yaml

from conformance.target.draft_probes import Finding

# Where frameworks serve their document by default (FastAPI, Springdoc, NestJS, fastify-swagger,
# express-openapi), tried in this order when no --openapi is given.
COMMON_PATHS = (
    "/openapi.json",
    "/openapi.yaml",
    "/v3/api-docs",
    "/swagger.json",
    "/api-docs",
    "/api-docs/openapi.json",
    "/docs/openapi.json",
    "/docs-json",
)
FETCH_SECONDS = 5.0

CREATE = ("post", "/application/{}/v2/configuration")
PATCH = ("patch", "/application/{}/v2/configuration/{}")
STATUS = ("get", "/sdk/v2/status")
BOOTSTRAP = ("get", "/sdk/v2/bootstrap")
EXPERIMENTS = "/application/{}/v2/experiments"
LIST_EXPERIMENTS = ("get", EXPERIMENTS)
CREATE_EXPERIMENT = ("post", EXPERIMENTS)

# Headers the spec names itself, never a gap to fill.
SPEC_HEADERS = frozenset({"authorization", "if-none-match", "if-match", "environment_id"})
ENVIRONMENT_WORDS = frozenset({"production", "development", "studio"})
NUMERIC_BOUND = 9007199254740991
INSTANCE_ID_MAX = 128
LIMIT_NAMES = ("limit", "take", "pagesize", "page_size", "per_page", "size", "count", "max")
OFFSET_NAMES = ("offset", "skip", "start", "from")
PAGE_NAMES = ("page", "pagenumber", "page_number", "pageno", "page_no", "p")
CURSOR_NAMES = ("cursor", "pagetoken", "page_token", "after", "next", "starting_after", "token")


def fetch(base_url: str, given: str | None) -> tuple[dict[str, Any], str] | None:
    """The target's document and where it was read: ``given`` (a URL, or a path under the base
    URL), else the first of ``COMMON_PATHS`` that answers one. None when nothing does."""
    candidates = [given] if given else list(COMMON_PATHS)
    with httpx.Client(timeout=FETCH_SECONDS, follow_redirects=True) as http:
        for candidate in candidates:
            url = candidate if "://" in candidate else base_url.rstrip("/") + candidate
            try:
                reply = http.get(url, headers={"Accept": "application/json, application/yaml"})
            except httpx.HTTPError:
                continue
            document = _parsed(reply.content) if reply.status_code == 200 else None
            if document is not None:
                return document, url
    return None


def _parsed(content: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(content)
    except ValueError:
        try:
            data = yaml.safe_load(content)
        except yaml.YAMLError:
            return None
    if isinstance(data, dict) and ("openapi" in data or "swagger" in data) and "paths" in data:
        return data
    return None


class Document:
    """An OpenAPI 3 or Swagger 2 document, its ``$ref``s resolved on reading."""

    def __init__(self, data: dict[str, Any], where: str) -> None:
        self.data = data
        self.where = where
        self.operations: dict[tuple[str, str], dict[str, Any]] = {}
        for path, item in (data.get("paths") or {}).items():
            if not isinstance(item, dict):
                continue
            shared = item.get("parameters", [])
            for method, operation in item.items():
                if method in ("get", "post", "patch", "put", "delete") and isinstance(
                    operation, dict
                ):
                    operation = {
                        **operation,
                        "parameters": [*shared, *operation.get("parameters", [])],
                    }
                    self.operations[(method, _template(path))] = operation

    def resolve(self, node: Any, depth: int = 0) -> Any:
        """``node`` with a ``$ref`` (local, JSON Pointer) followed, ``allOf`` merged."""
        if not isinstance(node, dict) or depth > 20:
            return node
        if "$ref" in node and isinstance(node["$ref"], str) and node["$ref"].startswith("#/"):
            target: Any = self.data
            for part in node["$ref"][2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            return self.resolve(target, depth + 1) if target is not None else {}
        if "allOf" in node and isinstance(node["allOf"], list):
            merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
            for part in node["allOf"]:
                resolved = self.resolve(part, depth + 1)
                if isinstance(resolved, dict):
                    merged = {**resolved, **merged}
            return merged
        return node

    def operation(self, wanted: tuple[str, str]) -> dict[str, Any] | None:
        method, suffix = wanted
        for (found_method, path), operation in self.operations.items():
            if found_method == method and (path == suffix or path.endswith(suffix)):
                return operation
        return None

    def parameters(self, operation: dict[str, Any], where: str) -> Iterator[dict[str, Any]]:
        for parameter in operation.get("parameters", []):
            resolved = self.resolve(parameter)
            if isinstance(resolved, dict) and resolved.get("in") == where:
                yield resolved

    def body_schema(self, operation: dict[str, Any]) -> dict[str, Any]:
        """The JSON request body's schema (OpenAPI 3 ``requestBody`` or a Swagger 2 body
        parameter), ``{}`` when there is none."""
        body = self.resolve(operation.get("requestBody", {}))
        for media, entry in (body.get("content") or {}).items():
            if "json" in media and isinstance(entry, dict):
                return dict(self.resolve(entry.get("schema", {})))
        for parameter in operation.get("parameters", []):
            resolved = self.resolve(parameter)
            if isinstance(resolved, dict) and resolved.get("in") == "body":
                return dict(self.resolve(resolved.get("schema", {})))
        return {}

    def properties(self, schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
        props = schema.get("properties") or {}
        return {name: dict(self.resolve(value)) for name, value in props.items()}


def _template(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path.rstrip("/") or "/")


def read(data: dict[str, Any], where: str) -> list[Finding]:
    """Every profile key the document shows, as documented findings."""
    document = Document(data, where)
    found: list[Finding] = []
    for reader in READERS:
        found += reader(document)
    return found


def _documented(document: Document, key: str, value: Any, element: str) -> Finding:
    return Finding(
        key, value, f"{element} in the target's document ({document.where})", "documented"
    )


# ------------------------------------------------------------------ headers


def _schema_words(schema: dict[str, Any]) -> set[str]:
    words = [*schema.get("enum", []), schema.get("default"), schema.get("example")]
    return {w for w in words if isinstance(w, str)}


def _header_role(parameter: dict[str, Any], schema: dict[str, Any]) -> str | None:
    name = str(parameter.get("name", "")).lower()
    words = _schema_words(schema) | _schema_words(parameter)
    if words & ENVIRONMENT_WORDS:
        return "environment"
    if schema.get("maximum") == NUMERIC_BOUND or schema.get("type") in ("integer", "number"):
        return "numeric"
    if schema.get("maxLength") == INSTANCE_ID_MAX:
        return "instance_id"
    for role, pattern in (
        ("environment", r"env"),
        ("instance_id", r"instance|server|node"),
        ("numeric", r"project|app"),
        ("sdk_version", r"version|sdk|client"),
    ):
        if re.search(pattern, name):
            return role
    return None


def _unit_role(parameter: dict[str, Any], schema: dict[str, Any]) -> str | None:
    name = str(parameter.get("name", "")).lower()
    if _schema_words(schema) & {"user", "server"} or re.search(r"type|kind", name):
        return "unit_type"
    structured = "content" in parameter or _types(schema) == {"object"}
    if structured or re.search(r"context|prop|attr", name):
        return "unit_context"
    if re.search(r"unit|user|distinct|subject|id", name):
        return "unit_id"
    return None


def _headers(document: Document) -> list[Finding]:
    found: list[Finding] = []
    status = document.operation(STATUS)
    seen: set[str] = set()
    if status is not None:
        found += _named_headers(document, status, _header_role, "GET /sdk/v2/status", seen)
    bootstrap = document.operation(BOOTSTRAP)
    if bootstrap is not None:
        found += _named_headers(document, bootstrap, _unit_role, "GET /sdk/v2/bootstrap", seen)
    return found


def _named_headers(
    document: Document,
    operation: dict[str, Any],
    role_of: Callable[[dict[str, Any], dict[str, Any]], str | None],
    where: str,
    seen: set[str],
) -> list[Finding]:
    """One finding per role that exactly one header of ``operation`` plays (ambiguity: none)."""
    roles: dict[str, list[str]] = {}
    for parameter in document.parameters(operation, "header"):
        name = str(parameter.get("name", ""))
        if name.lower() in SPEC_HEADERS or name.lower() in seen:
            continue
        seen.add(name.lower())
        schema = document.resolve(parameter.get("schema", {}))
        role = role_of(parameter, schema if isinstance(schema, dict) else {})
        if role is not None:
            roles.setdefault(role, []).append(name)
    return [
        _documented(document, f"headers.{role}", names[0], f"header {names[0]!r} of {where}")
        for role, names in roles.items()
        if len(names) == 1
    ]


# ------------------------------------------------------------------ configuration bodies


def _is_string_array(schema: dict[str, Any], document: Document) -> bool:
    items = document.resolve(schema.get("items", {}))
    return _types(schema) == {"array"} and isinstance(items, dict) and _types(items) == {"string"}


def _types(schema: dict[str, Any]) -> set[str]:
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    return kinds - {"null"}


def _create_body(document: Document) -> list[Finding]:
    operation = document.operation(CREATE)
    if operation is None:
        return []
    props = document.properties(document.body_schema(operation))
    where = "POST .../v2/configuration body"
    found: list[Finding] = []
    rest = {n: s for n, s in props.items() if n not in ("name", "alias", "description")}
    private = [n for n, s in rest.items() if _is_string_array(s, document)]
    comments = [
        n
        for n, s in rest.items()
        if _types(s) == {"object"}
        and _types(dict(document.resolve(s.get("additionalProperties") or {}))) == {"string"}
    ]
    content = [
        n
        for n, s in rest.items()
        if n not in private + comments
        and (not _types(s) or re.search(r"config|content|document|data|value|json", n.lower()))
    ]
    for key, names in (("private_keys", private), ("comments", comments), ("content", content)):
        if len(names) == 1:
            found.append(
                _documented(document, f"bodies.create.{key}", names[0], f"{names[0]!r} of {where}")
            )
    return found


def _is_operation_list(schema: dict[str, Any], document: Document) -> bool:
    """An array whose items (or each alternative of them) are objects with ``op`` and ``path``."""
    items = document.resolve(schema.get("items", {}))
    if not isinstance(items, dict):
        return False
    listed = items.get("oneOf") or items.get("anyOf") or []
    alternatives = [document.resolve(a) for a in listed] if isinstance(listed, list) else []
    return any(
        isinstance(a, dict) and {"op", "path"} <= set(document.properties(a))
        for a in [items, *alternatives]
    )


def _patch_body(document: Document) -> list[Finding]:
    operation = document.operation(PATCH)
    if operation is None:
        return []
    props = document.properties(document.body_schema(operation))
    where = "PATCH .../v2/configuration/{id} body"
    operations = [n for n, s in props.items() if _is_operation_list(s, document)]
    order = [n for n in props if n not in operations and re.search(r"order", n.lower())]
    base = [
        n
        for n, s in props.items()
        if n not in operations + order
        and _types(s) <= {"string"}
        and re.search(r"hash|base|version|etag|revision", n.lower())
    ]
    found = [
        _documented(document, f"bodies.patch.{key}", names[0], f"{names[0]!r} of {where}")
        for key, names in (("operations", operations), ("key_order", order), ("base_hash", base))
        if len(names) == 1
    ]
    if_match = any(
        str(p.get("name", "")).lower() == "if-match"
        for p in document.parameters(operation, "header")
    )
    if if_match and not base:
        found.append(
            _documented(
                document,
                "bodies.patch.base_hash_transport",
                "if-match",
                "the If-Match header of PATCH .../v2/configuration/{id}, no base field in its body",
            )
        )
    elif base:
        found.append(
            _documented(
                document, "bodies.patch.base_hash_transport", "body", f"{base[0]!r} of {where}"
            )
        )
    return found


# ------------------------------------------------------------------ statuses


def _success(document: Document, wanted: tuple[str, str], key: str, what: str) -> list[Finding]:
    operation = document.operation(wanted)
    if operation is None:
        return []
    codes = [int(c) for c in (operation.get("responses") or {}) if str(c).isdigit()]
    successes = sorted(c for c in codes if 200 <= c < 300)
    if len(successes) != 1:
        return []
    return [_documented(document, key, successes[0], f"the only 2xx response of {what}")]


def _statuses(document: Document) -> list[Finding]:
    return _success(
        document, CREATE, "statuses.create_configuration", "POST .../v2/configuration"
    ) + _success(document, CREATE_EXPERIMENT, "statuses.create_experiment", "POST .../experiments")


# ------------------------------------------------------------------ experiments


def _enum_of(document: Document, schema: dict[str, Any]) -> list[str] | None:
    resolved = document.resolve(schema)
    values = resolved.get("enum") if isinstance(resolved, dict) else None
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else None


def _experiments(document: Document) -> list[Finding]:
    operation = document.operation(CREATE_EXPERIMENT)
    if operation is None:
        return []
    where = "POST .../experiments body"
    props = document.properties(document.body_schema(operation))
    found: list[Finding] = []
    for key, names in (
        ("experiments.unit_types", ("unitType", "unit_type", "unitKind")),
        ("experiments.assignment_modes", ("assignmentMode", "assignment_mode", "mode")),
    ):
        for name in names:
            values = _enum_of(document, props.get(name, {}))
            if values:
                found.append(_documented(document, key, values, f"the enum of {name!r} of {where}"))
                break
    groups = props.get("groups", {})
    if isinstance(groups.get("maxItems"), int):
        found.append(
            _documented(
                document,
                "experiments.max_groups",
                groups["maxItems"],
                f"maxItems of 'groups' of {where}",
            )
        )
    return found


def _paging(document: Document) -> list[Finding]:
    operation = document.operation(LIST_EXPERIMENTS)
    if operation is None:
        return []
    where = "GET .../experiments"
    names = {str(p.get("name", "")): p for p in document.parameters(operation, "query")}
    found: list[Finding] = []

    def first(candidates: tuple[str, ...]) -> str | None:
        hits = [n for n in names if n.lower() in candidates]
        return hits[0] if len(hits) == 1 else None

    limit = first(LIMIT_NAMES)
    if limit is not None:
        found.append(
            _documented(document, "experiment_payload.limit_param", limit, f"{limit!r} of {where}")
        )
        bound = document.resolve(names[limit].get("schema", {})).get("maximum")
        if isinstance(bound, int):
            found.append(
                _documented(
                    document, "experiments.page_size_max", bound, f"maximum of {limit!r} of {where}"
                )
            )
    for style, candidates, key in (
        ("offset", OFFSET_NAMES, "offset_param"),
        ("page", PAGE_NAMES, "page_param"),
        ("cursor", CURSOR_NAMES, "cursor_param"),
    ):
        name = first(candidates)
        if name is not None:
            found.append(
                _documented(document, f"experiment_payload.{key}", name, f"{name!r} of {where}")
            )
            found.append(
                _documented(
                    document, "experiment_payload.pagination", style, f"{name!r} of {where}"
                )
            )
            break
    return found


READERS: tuple[Callable[[Document], list[Finding]], ...] = (
    _headers,
    _create_body,
    _patch_body,
    _statuses,
    _experiments,
    _paging,
)
