"""The SDK section's header entries: the SDK request headers read wrongly.

The environment header's aliases (a default of production, production or studio not honoured,
an unknown alias served as development) and the key's environment scope ignored on status, the
numeric project header and the instance-id header bounded wrongly. ``faulty.sdk`` lists them
between the status snapshot's entries and the bootstrap's.
"""

from __future__ import annotations

from collections.abc import Callable

from faulty.asgi import Request, Response, error_response
from faulty.recipes import (
    SDK,
    STATUS,
    Fault,
    answer,
    edit_request,
    fault,
    on_status,
    scope_ignored,
)


def _numeric_limit(limit: int) -> Callable[[Request], Response | None]:
    def make(request: Request) -> Response | None:
        value = request.header("project-id")
        if value is not None and value.isdigit() and int(value) > limit:
            return error_response(400, "INVALID_PROJECT_ID")
        return None

    return make


def _numeric_out_of_bounds_dropped(request: Request) -> Request:
    value = request.header("project-id")
    if value is not None and (not value.isdigit() or not 0 < int(value) <= 2**53 - 1):
        return request.with_header("project-id", None)
    return request


def _instance_id_limit(request: Request) -> Response | None:
    value = request.header("server-id")
    if value is not None and len(value) > 64:
        return error_response(400, "INVALID_SERVER_ID")
    return None


def _instance_id_truncated(request: Request) -> Request:
    value = request.header("server-id")
    return request.with_header("server-id", value[:128]) if value else request


def _alias(mapping: dict[str | None, str | None]) -> Callable[[Request], Request]:
    def edit(request: Request) -> Request:
        alias = request.header("environment")
        return request.with_header("environment", mapping[alias]) if alias in mapping else request

    return edit


def _unknown_alias_is_development(request: Request) -> Request:
    alias = request.header("environment")
    if alias is not None and alias not in ("production", "development", "studio"):
        return request.with_header("environment", "development")
    return request


# ------------------------------------------------------------------ the entries


def headers() -> tuple[Fault, ...]:
    """The SDK header entries, in the order the SDK section lists them."""
    return (
        fault(
            "alias-default-production",
            "SDK-HDR-ENV-DEFAULT-DEVELOPMENT",
            "A missing environment alias defaults to production.",
            edit_request(SDK, _alias({None: "production"})),
        ),
        fault(
            "production-alias-ignored",
            "SDK-HDR-ENV-PRODUCTION SDK-HDR-ENV-OUT-OF-SCOPE-403",
            "The production alias selects development.",
            edit_request(SDK, _alias({"production": "development"})),
        ),
        fault(
            "studio-refused",
            "SDK-HDR-ENV-STUDIO-SYNONYM SDK-HDR-ENV-OUT-OF-SCOPE-403",
            "`studio` is not accepted (400).",
            answer(
                SDK,
                lambda r: (
                    error_response(400, "INVALID_ENVIRONMENT")
                    if r.header("environment") == "studio"
                    else None
                ),
            ),
        ),
        fault(
            "unknown-alias-is-development",
            "SDK-HDR-ENV-UNKNOWN-VALUE",
            "An empty or unknown alias is served as development.",
            edit_request(SDK, _unknown_alias_is_development),
        ),
        fault(
            "status-scope-ignored",
            "SDK-HDR-ENV-OUT-OF-SCOPE-403",
            "Status ignores the key's environment scope.",
            lambda ctx: on_status(STATUS, 403, scope_ignored(ctx)),
        ),
        fault(
            "numeric-header-int32",
            "SDK-HDR-NUMERIC-IN-BOUNDS",
            "The numeric header refuses values above 2^31-1.",
            answer(SDK, _numeric_limit(2**31 - 1)),
        ),
        fault(
            "numeric-header-zero-accepted",
            "SDK-HDR-NUMERIC-OUT-OF-BOUNDS",
            "A numeric header of 0 (or out of bounds) is ignored instead of refused.",
            edit_request(SDK, _numeric_out_of_bounds_dropped),
        ),
        fault(
            "instance-id-max-64",
            "SDK-HDR-INSTANCE-ID-LENGTH",
            "Instance ids longer than 64 characters are refused.",
            answer(SDK, _instance_id_limit),
        ),
        fault(
            "instance-id-129-accepted",
            "SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS",
            "A 129-character instance id is accepted (cut to 128).",
            edit_request(SDK, _instance_id_truncated),
        ),
    )
