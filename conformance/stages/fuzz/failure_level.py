"""A fuzz failure's level: the contract constraint it breaks, judged by the keyword that failed.

``LOCATORS`` maps a check to the constraints its failure touches: a contract location
(``conformance.contract.document`` syntax) and the keyword there (a schema failure's own
keyword and instance path, ``required`` for a missing field or header, ``status``, ``media``,
``value`` for a refusal). ``judge`` reads each constraint's level in the contract the case was
generated from (``conformance.contract.levels``) for the target's profile:

- **interface**: the failure fails its requirements (any interface constraint touched);
- **drop-in**: the target departs from a production convention its profile does not declare; a
  ``Difference`` naming the key that would declare it (else the contract element), never a fail;
- **doubt**: only a constraint the contract inferred is touched: a spec-doubt.

A check with no locator (a 500, a transport error, credentials accepted, a header grammar) is
always at the interface level.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from schemathesis.core.failures import Failure

from conformance.contract.document import chain_of, resolve
from conformance.contract.levels import (
    DOUBT,
    DROP_IN,
    INTERFACE,
    MEDIA_KEYWORD,
    MEDIA_TYPE_KEYWORD,
    REQUIRED,
    STATUS_KEYWORD,
    VALUE_KEYWORD,
    Level,
    level_of,
    status_level,
)
from conformance.contract.profile_keys import Values, marks
from conformance.contract.schema_walk import operation_ids, property_nodes
from conformance.json_types import JsonObject
from conformance.stages.fuzz.response_checks import operation_id_of

if TYPE_CHECKING:
    from schemathesis import Response
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.profile import Profile

Located = tuple[str, str]  # (contract location, keyword)
Locator = Callable[[Failure, "OpenApiCase", "Response"], list[Located]]
MISSING_NAME = re.compile(r"""^["'](.+?)["'] is a required property""")
SHOWN = 80  # characters of a received value a difference shows
CONTRACT_URI = "urn:conformance:contract"
JSON = "application/json"
MEDIA_KEY = "errors.media_type"  # the key of an error answer's media type, where the profile has it


@dataclass(frozen=True)
class Judged:
    """A failure's level; for a drop-in one, what the difference says."""

    level: str  # INTERFACE | DROP_IN | DOUBT
    doubt: str | None = None
    key: str = ""  # the profile key that would declare the target's choice, else the element
    convention: str = ""
    received: str = ""


def _status(response: Response) -> str:
    return str(response.status_code)


def _body_path(instance_path: Iterable[object]) -> str:
    """A dotted property path; array indices are entered through ``items`` and dropped."""
    return ".".join(str(part) for part in instance_path if not isinstance(part, int))


def _schema(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
    path = _body_path(getattr(failure, "instance_path", ()) or ())
    schema_path = list(getattr(failure, "schema_path", ()) or ())
    keyword = str(schema_path[-1]) if schema_path else "type"
    base = f"response:{_status(response)}:body"
    if keyword == REQUIRED:
        found = MISSING_NAME.match(str(getattr(failure, "_raw_message", "")))
        if found:
            path = f"{path}.{found.group(1)}" if path else found.group(1)
    return [(f"{base}:{path}" if path else base, keyword)]


def json_media(value: str | None) -> bool:
    """Whether a Content-Type value names a JSON media type: ``application/json`` or one with
    the ``+json`` structured syntax suffix (RFC 6839), ``application/problem+json`` among them."""
    essence = (value or "").split(";", 1)[0].strip().lower()
    kind, _, subtype = essence.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def _media_type(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
    """A JSON media type other than ``application/json`` breaks only the exact type
    (``media-type``: stated where the specification names application/json), any other type
    the JSON body itself (``media``)."""
    values = response.headers.get("content-type") or []
    keyword = MEDIA_TYPE_KEYWORD if values and json_media(values[0]) else MEDIA_KEYWORD
    return [(f"response:{_status(response)}:media", keyword)]


def _headers(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
    names = getattr(failure, "missing_headers", None) or []
    if not names:
        return [(f"response:{_status(response)}", VALUE_KEYWORD)]
    return [(f"response:{_status(response)}:header:{name}", REQUIRED) for name in names]


def _body_violations(case: OpenApiCase) -> list[Located]:
    """Every constraint of the contract's request body that the case's body breaks, with its
    own keyword (``maxLength``, ``required``, ...): what a refusal of the body stood for."""
    body = getattr(case, "body", None)
    if not isinstance(body, dict | list | str | int | float | bool) or body is None:
        return []
    document = _document(case)
    try:
        operation = _operation(document, operation_id_of(case))
    except KeyError:
        return []
    content = resolve(document, operation.get("requestBody"), strict=False)
    content = content.get("content") if isinstance(content, dict) else None
    media = content.get("application/json") if isinstance(content, dict) else None
    if not isinstance(media, dict) or "schema" not in media:
        return []
    registry: Registry[object] = Registry().with_resource(
        CONTRACT_URI, Resource.from_contents(document, default_specification=DRAFT202012)
    )
    schema = {"$ref": CONTRACT_URI + "#" + _pointer(operation, document) + "/schema"}
    validator = Draft202012Validator(schema, registry=registry)
    found: list[Located] = []
    for error in validator.iter_errors(body):
        path = _body_path(error.absolute_path)
        keyword = str(error.validator)
        if keyword == REQUIRED:
            missing = MISSING_NAME.match(error.message)
            if missing:
                path = f"{path}.{missing.group(1)}" if path else missing.group(1)
        found.append((f"request-body:{path}" if path else "request-body", keyword))
    return list(dict.fromkeys(found))


def _pointer(operation: dict[str, object], document: JsonObject) -> str:
    """The JSON pointer of ``operation``'s JSON request body media entry in ``document``."""
    paths = document.get("paths")
    for path, item in paths.items() if isinstance(paths, dict) else ():
        for method, candidate in item.items() if isinstance(item, dict) else ():
            if candidate is operation:
                escaped = str(path).replace("~", "~0").replace("/", "~1")
                return f"/paths/{escaped}/{method}/requestBody/content/application~1json"
    raise KeyError("operation")


def _negated_input(keyword: str) -> Locator:
    """The constraints a refused case broke: the body's, found by validating it against the
    contract (each keyword judged at its own level: a bound the contract marks not shown is
    no interface demand), and the parameters the generator says it negated."""

    def locate(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
        body = _body_violations(case)
        data = getattr(getattr(case.meta, "phase", None), "data", None)
        named = [(getattr(data, "parameter", None), getattr(data, "parameter_location", None))]
        named += [
            (getattr(m, "parameter", None), getattr(m, "parameter_location", None))
            for m in getattr(data, "mutations", ()) or ()
        ]
        found = list(body)
        for name, where in named:
            place = getattr(where, "value", None)
            if not name or not place:
                continue
            if place == "body":
                if not body:  # the body's own violations say more than its name
                    found.append(
                        (f"request-body:{name}" if name != "body" else "request-body", keyword)
                    )
                continue
            found.append((f"parameter:{place}:{name}", keyword))
        return list(dict.fromkeys(found)) or [("operation", keyword)]

    return locate


ERROR_FIELD_KEYS = ("errors.code_field", "errors.message_field")


def _document(case: OpenApiCase) -> JsonObject:
    """The document the case was generated from (the contract in the target's terms)."""
    raw = getattr(case.operation.schema, "raw_schema", None)
    return raw if isinstance(raw, dict) else {}


def _error_fields(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
    """The error body's two fields, as the document the case came from names them."""
    base = f"response:{_status(response)}:body"
    document = _document(case)
    components = document.get("components", {})
    schemas = components.get("schemas", {}) if isinstance(components, dict) else {}
    names = [
        name
        for schema in (schemas.values() if isinstance(schemas, dict) else ())
        for name, node in property_nodes(document, schema).items()
        if set(marks(node)) & set(ERROR_FIELD_KEYS)
    ]
    return [(f"{base}:{name}", REQUIRED) for name in dict.fromkeys(names)] or [(base, REQUIRED)]


def _fixed(location: str, keyword: str) -> Locator:
    def locate(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
        return [(location, keyword)]

    return locate


def _status_header(header: str, keyword: str) -> Locator:
    def locate(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
        return [(f"response:{_status(response)}:header:{header}", keyword)]

    return locate


def _response(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
    return [(f"response:{_status(response)}", VALUE_KEYWORD)]


def _statuses(failure: Failure, case: OpenApiCase, response: Response) -> list[Located]:
    return [("operation", STATUS_KEYWORD)]


LOCATORS: dict[str, Locator] = {
    "status_code_conformance": _statuses,
    "content_type_conformance": _media_type,
    "response_schema_conformance": _schema,
    "response_headers_conformance": _headers,
    "negative_data_rejection": _negated_input(VALUE_KEYWORD),
    "missing_required_header": _negated_input(REQUIRED),
    "unsupported_method": _fixed("operation", "method"),
    "use_after_free": _fixed("operation", VALUE_KEYWORD),
    "ensure_resource_availability": _fixed("operation", VALUE_KEYWORD),
    "etag_equals_body_hash": _status_header("ETag", VALUE_KEYWORD),
    "not_modified_has_no_body": _response,
    "error_body_shape": _error_fields,
    "rate_limited_has_retry_after": _status_header("Retry-After", REQUIRED),
}


def _operation(document: JsonObject, operation_id: str) -> dict[str, object]:
    found = operation_ids(document).get(operation_id)
    if not isinstance(found, dict):
        raise KeyError(operation_id)
    return found


def _level(
    document: JsonObject, operation_id: str, located: Located, profile: Profile
) -> tuple[Level, list[dict[str, object]]]:
    location, keyword = located
    operation = _operation(document, operation_id)
    if keyword == STATUS_KEYWORD:
        return status_level(operation, document, profile), [operation]
    try:
        chain = chain_of(operation_id, location, document)
    except (KeyError, ValueError):
        chain = None
    chain = chain or [operation]  # undescribed: judged as the operation's own
    return level_of(chain, keyword, profile), chain


def _place(document: JsonObject, chain: list[dict[str, object]], keyword: str) -> str:
    """The contract element of an unkeyed convention, named by its component schema and the
    properties below it (``ErrorBody.errorCode pattern``), else by the keyword alone."""
    components = document.get("components", {})
    schemas = components.get("schemas", {}) if isinstance(components, dict) else {}
    by_id = {id(node): name for name, node in schemas.items()} if isinstance(schemas, dict) else {}
    names: list[str] = []
    base = ""
    for index, node in enumerate(chain):
        if id(node) in by_id:
            base = by_id[id(node)]
            break
        if "$ref" in node:
            continue  # the element is what it refers to (named by its component)
        for outer in chain[index + 1 :]:
            properties = outer.get("properties")
            name = next(
                (n for n, v in properties.items() if v is node)
                if isinstance(properties, dict)
                else iter(()),
                None,
            )
            if name is not None:
                names.insert(0, str(name))
                break
    element = ".".join([base, *names] if base else names) or str(chain[-1].get("operationId"))
    return f"contract: {element} ({keyword})"


def _convention(chain: list[dict[str, object]], keyword: str) -> str:
    if keyword == REQUIRED:
        return "present"
    if keyword == MEDIA_TYPE_KEYWORD:
        return JSON
    value = next((node[keyword] for node in chain if keyword in node), None)
    return f"{keyword}: {value}" if value is not None else keyword


def _received(failure: Failure, keyword: str, response: Response) -> str:
    if keyword == REQUIRED:
        return "absent"
    if keyword == STATUS_KEYWORD:
        return f"HTTP {response.status_code}"
    if keyword in (MEDIA_KEYWORD, MEDIA_TYPE_KEYWORD):
        values = response.headers.get("content-type") or ["(none)"]
        return f"Content-Type {values[0]}"
    if hasattr(failure, "instance"):
        return repr(failure.instance)[:SHOWN]
    return failure.title[:SHOWN]


def _nearest_key(keys: tuple[str, ...], keyword: str, response: Response, profile: Profile) -> str:
    """The key a difference names: for a status, the first whose default status is of the class
    received (a 422 where ``errors.validation_status`` defaults to 400); else the first."""
    if keyword != STATUS_KEYWORD:
        return keys[0]
    values = Values.of(profile)
    for key in keys:
        default = values.default(key)
        given = default if isinstance(default, list | tuple) else [default]
        if any(str(v)[:1] == str(response.status_code)[:1] for v in given):
            return key
    return keys[0]


def _has_key(profile: Profile, key: str) -> bool:
    try:
        profile.value(key)
    except (AttributeError, KeyError, TypeError):
        return False
    return True


def judge(
    operation_id: str,
    check: str,
    failure: Failure,
    case: OpenApiCase,
    response: Response,
    profile: Profile,
) -> Judged:
    """The level of a failure of ``check`` (see the module docstring)."""
    locate = LOCATORS.get(check)
    if locate is None:
        return Judged(INTERFACE)
    document = _document(case)
    found: list[tuple[Level, list[dict[str, object]], str]] = []
    for located in locate(failure, case, response):
        try:
            level, chain = _level(document, operation_id, located, profile)
        except KeyError:
            return Judged(INTERFACE)
        found.append((level, chain, located[1]))
    if not found or any(level.level == INTERFACE for level, _c, _k in found):
        return Judged(INTERFACE)
    doubts = [level for level, _c, _k in found if level.level == DOUBT]
    if doubts:
        return Judged(DOUBT, doubt=doubts[0].doubt)
    level, chain, keyword = found[0]
    received = _received(failure, keyword, response)
    if keyword == MEDIA_TYPE_KEYWORD and not level.keys and _has_key(profile, MEDIA_KEY):
        return Judged(DROP_IN, key=MEDIA_KEY, convention=JSON, received=received)
    if level.keys:
        key = _nearest_key(level.keys, keyword, response, profile)
        default = Values.of(profile).default(key)
        return Judged(DROP_IN, key=key, convention=str(default), received=received)
    return Judged(
        DROP_IN,
        key=_place(document, chain, keyword),
        convention=_convention(chain, keyword),
        received=received,
    )


def doubt_of_failure(
    operation_id: str,
    check: str,
    failure: Failure,
    case: OpenApiCase,
    response: Response,
    profile: Profile,
) -> str | None:
    """The doubt of a failure (``inferred``), None when it is no spec-doubt."""
    judged = judge(operation_id, check, failure, case, response, profile)
    return judged.doubt if judged.level == DOUBT else None


__all__ = [
    "DOUBT",
    "DROP_IN",
    "INTERFACE",
    "LOCATORS",
    "Judged",
    "doubt_of_failure",
    "json_media",
    "judge",
]
