"""Variants that spell what needs no key differently: timestamps with an offset and
microseconds, a weak ETag, a Content-Type in mixed case with a charset, Retry-After as an HTTP
date (RFC 9110 makes each equal to the reference's spelling), a 40-hex-digit hash."""

from __future__ import annotations

import re
from typing import Any

from dialect import timestamps
from dialect.spelling import JSON_CONTENT_TYPE, weak
from dialect.throttle import http_date_after
from faulty.asgi import Request, Response

from variants.rewrite import handler
from variants.variant import Variant

TIMESTAMPED = frozenset(
    {"CFG-RECORD-TIMESTAMPS", "CFG-RECORD-UPDATED-AT-ADVANCES", "CFG-CREATE-RECORD-SHAPE"}
)
ETAGS = frozenset(
    {"SDK-STATUS-ETAG-EQUALS-HASH", "SDK-STATUS-304-ETAG", "SDK-BOOTSTRAP-ETAG-EQUALS-HASH"}
)
JSON_TYPED = frozenset(
    {"CFG-RESPONSE-CONTENT-TYPE-JSON", "EXP-RESPONSE-CONTENT-TYPE-JSON", "ERR-BODY-JSON"}
)
RETRY = frozenset({"LIMIT-RATE-429-RETRY-AFTER", "LIMIT-RATE-RECOVERS"})


def _stamped(data: Any, change: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: change(v) if k in timestamps.FIELDS else _stamped(v, change) for k, v in data.items()
        }
    if isinstance(data, list):
        return [_stamped(v, change) for v in data]
    return data


def _offset_in(request: Request) -> Request:
    data = request.json()
    if data is None or request.method not in ("POST", "PATCH", "PUT"):
        return request
    return request.with_json(_stamped(data, timestamps.to_reference))


def _offset_out(request: Request, response: Response) -> Response:
    data = response.json()
    if data is None:
        return response
    return response.with_json(_stamped(data, timestamps.to_dialect))


def _weak(request: Request, response: Response) -> Response:
    etag = response.headers.get("etag")
    return response if etag is None else response.with_header("etag", weak(etag))


def _weak_in(request: Request) -> Request:
    """A weak tag sent back compares weakly (RFC 9110 13.1.2): the same tag, strong."""
    value = request.header("if-none-match")
    if value is None:
        return request
    return request.with_header("if-none-match", re.sub(r'W/"', '"', value))


def _typed(request: Request, response: Response) -> Response:
    kind = response.headers.get("content-type", "")
    if kind.split(";")[0].strip().lower() == "application/json":
        return response.with_header("content-type", JSON_CONTENT_TYPE)
    return response


def _dated(request: Request, response: Response) -> Response:
    wait = response.headers.get("retry-after")
    if response.status != 429 or wait is None or not wait.isdigit():
        return response
    return response.with_header("retry-after", http_date_after(float(wait)))


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "timestamps-offset-microseconds",
        "writes every timestamp at +01:00 with microseconds: spec 2.1 says ISO 8601",
        TIMESTAMPED,
        handler(rewrite=_offset_in, answer=_offset_out),
    ),
    Variant(
        "etag-weak",
        "sends its ETag as a weak validator and compares If-None-Match weakly (RFC 9110 "
        "13.1.2): the spec does not say strong",
        ETAGS,
        handler(rewrite=_weak_in, answer=_weak),
    ),
    Variant(
        "content-type-case-charset",
        "spells its JSON media type 'application/JSON ; charset=\"UTF-8\"' (RFC 9110 8.3.1: "
        "case-insensitive, OWS around ';')",
        JSON_TYPED,
        handler(answer=_typed),
    ),
    Variant(
        "retry-after-http-date",
        "sends Retry-After as an IMF-fixdate (RFC 9110 10.2.3 allows a date or seconds)",
        RETRY,
        handler(answer=_dated),
    ),
)
