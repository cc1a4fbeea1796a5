"""Correct-but-different error answers and SDK header grammars: ASGI handlers over refserver.

Each function returns a ``faulty.asgi.Handler`` that changes one choice the specification leaves
open, and ``PROFILES`` the profile keys that declare it. Every one keeps the interface: the
variant catalogue (registered elsewhere) expects each to pass at the interface level, with its
change listed as a drop-in difference when the profile leaves the key at its default.

- ``problem_json``: every error answer in ``application/problem+json`` (RFC 9457), except on the
  configuration endpoints, whose "Response media type is application/json" (spec 4.1) binds them.
- ``no_code_field``: FastAPI-style error bodies, ``{"detail": "<message>"}``, no code field.
- ``case_insensitive_alias``: ``Production`` is production (scope still enforced).
- ``rate_limited_503``: the rate-limit refusal answered 503 (with its Retry-After).
- ``javascript_numeric``: the numeric header read as JavaScript's ``Number()`` reads it.
- ``validation_400_or_422``: 400 for a body that is not JSON, 422 for a JSON body of the wrong
  shape (errors.validation_status: [400, 422]).
"""

from __future__ import annotations

import re
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response

CONFIGURATION_PATH = re.compile(r"^/application/[^/]+/v2/configuration(/|$)")
PROBLEM_JSON = "application/problem+json"
ALIASES = ("production", "development", "studio")


def _error(response: Response) -> bool:
    return response.status >= 400


def problem_json() -> Handler:
    """Error answers outside the configuration endpoints in application/problem+json."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not _error(response) or CONFIGURATION_PATH.match(request.path):
            return response
        return response.with_header("content-type", PROBLEM_JSON)

    return handler


def no_code_field() -> Handler:
    """Error bodies ``{"detail": <message>}``: no code field (errors.code_field: null)."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = response.json()
        if not _error(response) or not isinstance(body, dict):
            return response
        return response.with_json({"detail": str(body.get("message", ""))})

    return handler


def case_insensitive_alias(header: str = "environment") -> Handler:
    """A case variant of an allowed alias read as the value it spells (scope kept: the
    reference server judges the folded value's scope)."""

    async def handler(request: Request, forward: Forward) -> Response:
        alias = request.header(header)
        if alias is not None and alias != alias.lower() and alias.lower() in ALIASES:
            request = request.with_header(header, alias.lower())
        return await forward(request)

    return handler


def rate_limited_503() -> Handler:
    """The rate-limit refusal answered 503 instead of 429 (errors.rate_limited_status: 503)."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        return response.replace(status=503) if response.status == 429 else response

    return handler


_JS_PREFIXED = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_JS_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _javascript_integer(text: str) -> int | None:
    """``Number(text)`` when it is a whole number (written here apart from the kit's oracle)."""
    body = text.strip()
    if _JS_PREFIXED.fullmatch(body):
        return int(body[2:], {"x": 16, "o": 8, "b": 2}[body[1].lower()])
    if _JS_DECIMAL.fullmatch(body):
        value = float(body)
        return int(value) if value.is_integer() else None
    return None


def javascript_numeric(header: str = "project-id") -> Handler:
    """The numeric header read as JavaScript reads a number: +5, 0x10 and 1e3 are 5, 16, 1000
    (handed to the reference server in decimal digits; the rest as sent, refused as before)."""

    async def handler(request: Request, forward: Forward) -> Response:
        raw = request.header(header)
        value = None if raw is None else _javascript_integer(raw)
        if raw is not None and value is not None and value > 0:
            request = request.with_header(header, str(value))
        return await forward(request)

    return handler


def validation_400_or_422() -> Handler:
    """A write whose JSON body is refused as invalid answers 422; a body that is not JSON, and
    every other invalid input, stays 400 (FastAPI's split)."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        shaped = request.method in ("POST", "PATCH") and request.json() is not None
        return response.replace(status=422) if response.status == 400 and shaped else response

    return handler


PROFILES: dict[str, dict[str, Any]] = {
    "problem_json": {"errors": {"media_type": PROBLEM_JSON}},
    "no_code_field": {"errors": {"code_field": None, "message_field": "detail"}},
    "case_insensitive_alias": {"headers": {"environment_case": "insensitive"}},
    "rate_limited_503": {"errors": {"rate_limited_status": 503}},
    "javascript_numeric": {"headers": {"numeric_grammar": "javascript-number"}},
    "validation_400_or_422": {
        "errors": {"validation_status": [400, 422], "malformed_body_status": 400}
    },
}

HANDLERS = {
    "problem_json": problem_json,
    "no_code_field": no_code_field,
    "case_insensitive_alias": case_insensitive_alias,
    "rate_limited_503": rate_limited_503,
    "javascript_numeric": javascript_numeric,
    "validation_400_or_422": validation_400_or_422,
}
