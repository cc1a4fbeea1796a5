"""Spec-doubt: which contract element a fuzz failure touches, and whether that element is a gap.

A failure that only touches an element the specification does not show (``x-spec: not-shown``)
or that the contract inferred (``x-spec: inferred``) is a doubt about the contract, not a
conformance failure. The contract asked is the one the case was generated from: the contract as
the target profile specialised it, where an element whose value the target declared
(``x-spec: declared``: a header, field or parameter name, a status, an enum) is no gap but the
target's own choice, so a failure on it is real. ``LOCATORS`` maps a check to the contract
locations its failure touches (``conformance.contract.document.doubt_of`` syntax); a check with no
locator is never a doubt (a 500, a transport error, credentials accepted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from schemathesis.core.failures import Failure

from conformance.contract.document import doubt_of
from conformance.contract.profile_keys import marks
from conformance.contract.schema_walk import property_nodes
from conformance.json_types import JsonObject

if TYPE_CHECKING:
    from schemathesis import Response
    from schemathesis.specs.openapi.schemas import OpenApiCase

Locator = Callable[[Failure, "OpenApiCase", "Response"], list[str]]


def _status(response: Response) -> str:
    return str(response.status_code)


def _body_path(instance_path: Iterable[object]) -> str:
    """A dotted property path; array indices are entered through ``items`` and dropped."""
    return ".".join(str(part) for part in instance_path if not isinstance(part, int))


def _response(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
    return [f"response:{_status(response)}"]


def _media_type(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
    """The answer's documented media type: a stated one is no gap, even where the status that
    carries it is (a create's success status is the target's to choose, its JSON is not)."""
    return [f"response:{_status(response)}:body"]


def _schema(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
    path = _body_path(getattr(failure, "instance_path", ()) or ())
    base = f"response:{_status(response)}:body"
    return [f"{base}:{path}" if path else base]


def _headers(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
    names = getattr(failure, "missing_headers", None) or []
    if not names:
        return _response(failure, case, response)
    return [f"response:{_status(response)}:header:{name}" for name in names]


def _negated_input(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
    meta = case.meta
    data = getattr(getattr(meta, "phase", None), "data", None)
    name = getattr(data, "parameter", None)
    where = getattr(getattr(data, "parameter_location", None), "value", None)
    if not name or not where:
        return ["operation"]
    if where == "body":
        return [f"request-body:{name}" if name != "body" else "request-body"]
    return [f"parameter:{where}:{name}"]


ERROR_FIELD_KEYS = ("errors.code_field", "errors.message_field")


def _document(case: OpenApiCase) -> JsonObject | None:
    """The document the case was generated from (the contract in the target's terms)."""
    raw = getattr(case.operation.schema, "raw_schema", None)
    document: JsonObject | None = raw if isinstance(raw, dict) else None
    return document


def _error_fields(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
    """The error body's two fields, as the document the case came from names them."""
    base = f"response:{_status(response)}:body"
    document = _document(case) or {}
    components = document.get("components", {})
    schemas = components.get("schemas", {}) if isinstance(components, dict) else {}
    names = [
        name
        for schema in (schemas.values() if isinstance(schemas, dict) else ())
        for name, node in property_nodes(document, schema).items()
        if set(marks(node)) & set(ERROR_FIELD_KEYS)
    ]
    return [f"{base}:{name}" for name in dict.fromkeys(names)] or [base]


def _fixed(*locations: str) -> Locator:
    def locate(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
        return list(locations)

    return locate


def _status_header(header: str) -> Locator:
    def locate(failure: Failure, case: OpenApiCase, response: Response) -> list[str]:
        return [f"response:{_status(response)}:header:{header}"]

    return locate


LOCATORS: dict[str, Locator] = {
    "status_code_conformance": _response,
    "content_type_conformance": _media_type,
    "response_schema_conformance": _schema,
    "response_headers_conformance": _headers,
    "negative_data_rejection": _negated_input,
    "missing_required_header": _negated_input,
    "unsupported_method": _fixed("operation"),
    "use_after_free": _fixed("operation"),
    "ensure_resource_availability": _fixed("operation"),
    "etag_equals_body_hash": _status_header("ETag"),
    "not_modified_has_no_body": _response,
    "error_body_shape": _error_fields,
    "rate_limited_has_retry_after": _status_header("Retry-After"),
}


def doubt_of_failure(
    operation_id: str, check: str, failure: Failure, case: OpenApiCase, response: Response
) -> str | None:
    """``not-shown``/``inferred`` when every element the failure touches is a gap, else None."""
    locate = LOCATORS.get(check)
    if locate is None:
        return None
    doubts: list[str | None] = []
    document = _document(case)
    for location in locate(failure, case, response):
        try:
            doubts.append(doubt_of(operation_id, location, document))
        except (KeyError, ValueError):
            doubts.append(None)
    if not doubts or any(d is None for d in doubts):
        return None
    return "not-shown" if "not-shown" in doubts else doubts[0]
