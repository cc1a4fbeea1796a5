"""Variants that name things their own way: error body fields, SDK request headers and the
configuration request bodies' fields (the spec shows none of these names)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from faulty.asgi import Request

from variants.rewrite import (
    CONFIGURATION_LIST,
    CONFIGURATIONS,
    error_fields,
    handler,
    request_fields,
    request_headers,
)
from variants.variant import Variant, direct, dotted_keys, pair

HEADERS = {
    "environment": ("environment", "x-env"),
    "instance_id": ("server-id", "x-instance-id"),
    "numeric": ("project-id", "x-project"),
    "sdk_version": ("sdkversion", "x-sdk-version"),
    "unit_id": ("unit-id", "x-unit-id"),
    "unit_type": ("unit-type", "x-unit-type"),
    "unit_context": ("unit-context", "x-unit-context"),
}
CREATE = {
    "content": ("configuration", "content"),
    "private_keys": ("privateKeys", "secret"),
    "comments": ("comments", "notes"),
}
PATCH = {
    "operations": ("operations", "patch"),
    "key_order": ("keyOrder", "order"),
    "base_hash": ("baseHash", "base"),
}


def declared_only(name: str, doc: str, make: Any, values: dict[str, Any]) -> Variant:
    """A change the kit cannot talk to unless the profile declares it (the kit sends the
    conventional name, which the variant does not read): declared only."""
    return Variant(name, doc, direct(dotted_keys(values)), make, declare=values)


def _header(key: str) -> Variant:
    reference, mine = HEADERS[key]
    variant = declared_only(
        f"header-{key.replace('_', '-')}",
        f"reads the SDK's {reference!r} header as {mine!r}: spec 4.3 names no header",
        handler(rewrite=request_headers({reference: mine})),
        {"headers": {key: mine}},
    )
    # No requirement rests on the version header's key: the SDK header family judges it.
    return (
        replace(variant, watch=frozenset({"SDK-HDR-ENV-DEFAULT-DEVELOPMENT"}))
        if key == "sdk_version"
        else variant
    )


def _create(key: str) -> Variant:
    reference, mine = CREATE[key]
    return declared_only(
        f"create-field-{key.replace('_', '-')}",
        f"reads the create body's {reference!r} as {mine!r}: spec 2.2 names only 'name'",
        handler(rewrite=request_fields(CONFIGURATION_LIST, {reference: mine}, methods=("POST",))),
        {"bodies": {"create": {key: mine}}},
    )


def _patch(key: str) -> Variant:
    reference, mine = PATCH[key]
    return declared_only(
        f"patch-field-{key.replace('_', '-')}",
        f"reads the patch body's {reference!r} as {mine!r}: spec 2.3 shows no field names",
        handler(rewrite=request_fields(CONFIGURATIONS, {reference: mine}, methods=("PATCH",))),
        {"bodies": {"patch": {key: mine}}},
    )


def _if_match(request: Request) -> Request:
    """The base hash from If-Match (a strong tag), never from the body."""
    from dialect.hashes import strong_tag

    if request.method != "PATCH" or not CONFIGURATIONS.fullmatch(request.path):
        return request
    data = request.json()
    if not isinstance(data, dict):
        return request
    data.pop("baseHash", None)
    value = request.header("if-match")
    if value is not None and value.strip() != "*":
        tag = strong_tag(value)
        data["baseHash"] = tag if tag is not None else "unmatched"  # If-Match compares strongly
    return request.with_json(data).with_header("if-match", None)


VARIANTS: tuple[Variant, ...] = (
    *pair(
        "error-code-field-code",
        "names an error body's code 'code': spec 7 shows the error body's fields nowhere",
        handler(answer=error_fields({"errorCode": "code"})),
        {"errors": {"code_field": "code"}},
    ),
    *pair(
        "error-message-field-detail",
        "names an error body's message 'detail'",
        handler(answer=error_fields({"message": "detail"})),
        {"errors": {"message_field": "detail"}},
    ),
    *(_header(k) for k in HEADERS),
    *(_create(k) for k in CREATE),
    *(_patch(k) for k in PATCH),
    declared_only(
        "base-hash-if-match",
        "takes a patch's base hash in If-Match (RFC 9110 13.1.1), not in the body: spec 2.3 "
        "says a base hash is sent, not where",
        handler(rewrite=_if_match),
        {"bodies": {"patch": {"base_hash_transport": "if-match"}}},
    ),
)
