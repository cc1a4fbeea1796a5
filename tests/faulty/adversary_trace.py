"""The *adversary-trace* section (issue 38, adversarial step): one-defect servers written from the
specification and ``docs/trace.md`` alone, without reading the kit's checks.

Each entry breaks one statement of the specification, chosen among those with the fewest faults
that break only them, in a part of the statement's space a hand-written example may not try:
one environment (production), one unit type (server), one assignment mode (roundRobin), one
endpoint form (the per-unit bootstrap, the ``?hash=`` transport), one key (the all-scope key, the
legacy key), one position in a list (the third group), one state (a null document, a terminated
experiment, a manually assigned member), one grammar (a prefix read as a number, a length in
bytes). Each doc quotes the specification's words it breaks; names start ``adv2-``. The
experiment entries are ``faulty.adversary_experiments``'s, listed here between the management
and SDK ones.
"""

from __future__ import annotations

import re
from typing import Any

from faulty import adversary_experiments
from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    PATCH,
    SDK,
    SNAPSHOT,
    STATUS,
    Fault,
    answer,
    edit_json,
    edit_request,
    fault,
    ok,
    route,
    with_identity,
    without_identity,
)

ADVERSARY_TRACE_PREFIX = "adv2-"

_ENV_ALIASES = ("production", "development", "studio")


def _alias(request: Request) -> str:
    """The environment the reference app would select for ``request``."""
    raw = request.header("environment")
    return "development" if raw in (None, "studio") else str(raw)


def _production(request: Request) -> bool:
    return request.header("environment") == "production"


# ------------------------------------------------------------------ configuration records


def _deleted_at_word(data: Any, request: Request) -> Any:
    if isinstance(data, dict) and "deletedAt" in data:
        data["deletedAt"] = "not deleted"
    return data


async def _empty_patch_on_null_refused(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    if not PATCH(request) or request.json() != {} or not ok(response):
        return response
    record = response.json()
    if isinstance(record, dict) and record.get("configuration") is None:
        return error_response(400, "EMPTY_PATCH")
    return response


_MANAGEMENT = route("*", r"^/application/[^/]+/v2/configuration")
_LEADING_DIGITS = re.compile(r"^\s*([0-9]+)")


def _environment_id_parse_int(request: Request) -> Request:
    """``parseInt(environment_id)``: the leading digits of a value that is no number."""
    raw = request.header("environment_id")
    if raw is None or raw.strip().isdigit():
        return request
    match = _LEADING_DIGITS.match(raw)
    return request if match is None else request.with_header("environment_id", match.group(1))


# ------------------------------------------------------------------ the status snapshot


def _production_primary_from_development(ctx: Context) -> Handler:
    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not without_identity(request) or not _production(request) or response.status != 200:
            return response
        data = response.json()
        if not isinstance(data, dict) or not data.get("configurations"):
            return response
        dev = await forward(
            request.replace(path="/sdk/v2/status", query=())
            .with_header("authorization", ctx.all_key)
            .with_header("environment", "development")
            .with_header("if-none-match", None)
            .with_header("server-id", "adv2-primary-lookup")
        )
        other = (dev.json() or {}).get("primaryConfigurationId") if dev.status == 200 else None
        own = {c.get("id") for c in data["configurations"] if isinstance(c, dict)}
        if isinstance(other, int) and other not in own:
            data["primaryConfigurationId"] = other
            return response.with_json(data)
        return response

    return handler


def _drop_required_in_production(data: Any, request: Request) -> Any:
    if isinstance(data, dict) and _production(request):
        data.pop("requiredProperties", None)
    return data


def _other_environment_hash_is_current(ctx: Context) -> Handler:
    async def handler(request: Request, forward: Forward) -> Response:
        sent = request.param("hash")
        response = await forward(request)
        if not STATUS(request) or not sent or response.status != 200:
            return response
        if request.header("if-none-match") is not None:
            return response
        other = "production" if _alias(request) == "development" else "development"
        probe = await forward(
            request.replace(query=())
            .with_header("authorization", ctx.all_key)
            .with_header("environment", other)
            .with_header("server-id", "adv2-other-env-lookup")
        )
        other_hash = (probe.json() or {}).get("hash") if probe.status == 200 else None
        if sent == other_hash:
            etag = response.headers.get("etag", "")
            return Response(304, {"etag": etag} if etag else {}, b"")
        return response

    return handler


def _polling_null(data: Any, request: Request) -> Any:
    if isinstance(data, dict) and "polling" not in data:
        data["polling"] = None
    return data


# ------------------------------------------------------------------ SDK headers and keys


def _studio_all_scope_production(ctx: Context) -> Handler:
    return edit_request(
        SDK,
        lambda r: (
            r.with_header("environment", "production")
            if r.header("environment") == "studio" and r.header("authorization") == ctx.all_key
            else r
        ),
    )


def _unit_unknown_alias_development(request: Request) -> Request:
    raw = request.header("environment")
    if not with_identity(request) or raw is None or raw in _ENV_ALIASES:
        return request
    return request.with_header("environment", "development")


def _production_numeric_int32(request: Request) -> Response | None:
    raw = (request.header("project-id") or "").strip()
    in_bounds = raw.isdigit() and 2**31 - 1 < int(raw) <= 9007199254740991
    return error_response(400, "INVALID_PROJECT_ID") if in_bounds and _production(request) else None


def _bucket_by_prefix(request: Request) -> Request:
    raw = request.header("server-id")
    if raw is None or not 1 <= len(raw) <= 128:
        return request
    return request.with_header("server-id", raw[:8])


def _pat_on_bootstrap(ctx: Context) -> Handler:
    return edit_request(
        BOOTSTRAP,
        lambda r: (
            r.with_header("authorization", ctx.all_key)
            if (r.header("authorization") or "").removeprefix("Bearer ").strip() == ctx.pat
            else r
        ),
    )


# ------------------------------------------------------------------ the section


def adversary_trace() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return _management_faults() + adversary_experiments.experiment_faults() + _sdk_faults()


def _management_faults() -> tuple[Fault, ...]:
    return (
        fault(
            "adv2-deleted-at-word-after-patch",
            "CFG-RECORD-TIMESTAMPS CFG-PATCH-RECORD-SHAPE CFG-RECORD-DELETED-AT-LIVE",
            "S24/S62, spec 2.1: `deletedAt | string, ISO 8601 date-time | present in the shape; "
            "nullability is not stated`. The record a patch returns carries deletedAt as the "
            "word `not deleted` (create keeps null): no date-time, and a live record marked "
            "deleted (CFG-RECORD-DELETED-AT-LIVE, the convention the reference declares).",
            edit_json(PATCH, _deleted_at_word),
        ),
        fault(
            "adv2-empty-patch-refused-on-null-content",
            "CFG-PATCH-EMPTY-BODY",
            "S36, spec 2.3: `Every field is optional (an empty object is an accepted shape)`. An "
            "empty patch body is refused with 400 when the configuration's document is null "
            "(`configuration | any JSON value, may be null`); other documents accept it.",
            _empty_patch_on_null_refused,
        ),
        fault(
            "adv2-environment-id-parse-int",
            "CFG-ENV-ID-REQUIRED",
            "S63, spec 4.1: `Both endpoints take the header environment_id (number, required)`. "
            "A value that is no number but starts with digits (`1abc`, `1.5`, `2e3`) is read as "
            "its leading digits, as JavaScript's parseInt reads it.",
            edit_request(_MANAGEMENT, _environment_id_parse_int),
        ),
    )


def _sdk_faults() -> tuple[Fault, ...]:
    return (
        fault(
            "adv2-production-primary-from-development",
            "SDK-STATUS-PRIMARY-CONFIG",
            "S42, spec 2.4: `primaryConfigurationId | number` of the snapshot (whose "
            "configurations are the environment's). In production, status and bootstrap name "
            "development's primary configuration, which is not one of the entries.",
            _production_primary_from_development,
        ),
        fault(
            "adv2-production-status-lacks-required-properties",
            "SDK-STATUS-200-SNAPSHOT SDK-BOOTSTRAP-MATCHES-STATUS SDK-STATUS-200-ON-OTHER-HASH",
            "S45, spec 2.4: `requiredProperties | array of string`. The production status "
            "snapshot has no requiredProperties field (development's has it; bootstrap keeps "
            "it, so the two payloads differ in production); a 200 to another hash in production is "
            "then not the full snapshot either (SDK-STATUS-200-ON-OTHER-HASH).",
            edit_json(STATUS, _drop_required_in_production),
        ),
        fault(
            "adv2-other-environment-hash-query-304",
            "SDK-STATUS-200-ON-OTHER-HASH",
            "S95/S106, spec 4.3: `304: nothing changed ... Given when If-None-Match (or ?hash=) "
            "equals the current snapshot hash`. A ?hash= equal to the other environment's "
            "current hash answers 304 (If-None-Match is compared correctly).",
            _other_environment_hash_is_current,
        ),
        fault(
            "adv2-polling-null-normally",
            "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
            "S48, spec 2.4: `polling | ... | present only while the backend is shedding load`. "
            "Snapshots served without shedding carry `polling: null`: the field is there before "
            "any load and after it has passed (POLL-HINT-GONE-AFTER-LOAD).",
            edit_json(SNAPSHOT, _polling_null),
        ),
        fault(
            "adv2-studio-all-scope-key-production",
            "SDK-HDR-ENV-STUDIO-SYNONYM",
            "S100, spec 4.3: `studio is accepted as a synonym for development`. For the key "
            "scoped to both environments, studio selects production (development-only keys are "
            "served development).",
            _studio_all_scope_production,
        ),
        fault(
            "adv2-unit-bootstrap-unknown-alias-development",
            "SDK-HDR-ENV-UNKNOWN-VALUE",
            "S97/S98, spec 4.3: `environment alias ... allowed values production, development`. "
            "Only on the per-unit bootstrap (unit-id sent), an alias outside the allowed values "
            "is read as development (status and the bootstrap without identity refuse it). The "
            "bootstrap's inputs are `not shown`: the rule is status's, carried to bootstrap as "
            "`the same payload` (the requirement names every SDK endpoint form).",
            edit_request(BOOTSTRAP, _unit_unknown_alias_development),
        ),
        fault(
            "adv2-production-numeric-int32",
            "SDK-HDR-NUMERIC-IN-BOUNDS",
            "S102/S137, spec 4.3: `numeric parameter | header | number, 0 < value <= "
            "9007199254740991` (an input of the status endpoint, whatever the alias). With the "
            "alias production, values above 2^31-1 are refused with 400, as a 32-bit column "
            "of the production store would (development keeps the full bound).",
            answer(SDK, _production_numeric_int32),
        ),
        fault(
            "adv2-bucket-by-instance-id-prefix",
            "LIMIT-RATE-PER-INSTANCE",
            "S104/S132, spec 8.1: `The status endpoint has a per-server rate limit. It is scoped "
            "by the server instance id.` The bucket is keyed by the id's first 8 characters, so "
            "instances whose ids share a prefix share one bucket (the kit's own ids differ from "
            "their first character, so only the per-instance test's two ids, alike but for the "
            "last one, share it).",
            edit_request(SDK, _bucket_by_prefix),
        ),
        fault(
            "adv2-bootstrap-takes-pat",
            "AUTH-SDK-PAT-REFUSED",
            "S121, spec 5: `SDK (public) key | /sdk/v2/* endpoints`; the personal access token "
            "is used by configuration management and experiments. The bootstrap endpoint "
            "serves the owner's PAT (raw or after Bearer) as the project's key (status refuses "
            "it).",
            _pat_on_bootstrap,
        ),
    )
