"""The *edges* section: authentication, errors, rate limiting and load shedding.

Management and SDK credentials accepted or refused wrongly (open endpoints, any token or key,
another owner's project, the legacy key prefix, key scopes), error answers that are not JSON or
use other codes or statuses, the rate limit off, too strict, shared or per connection, a 429
without ``Retry-After``, with one that is neither delay-seconds nor an IMF-fixdate, or with a
long penalty, and the ``polling`` hint always or never sent, kept after the load fell, unusable,
or missing on bootstrap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    CREATE,
    EXPERIMENTS,
    MANAGEMENT,
    PATCH,
    SDK,
    SNAPSHOT,
    STATUS,
    Fault,
    answer,
    code_renamed,
    drop,
    edit_json,
    edit_request,
    edit_response,
    either,
    error_code_of,
    fault,
    hash_map_fault,
    id_stripped,
    legacy_key_refused,
    no_rate_limit,
    on_status,
    owner_without_credentials,
    sha,
    with_path,
)


def sticky_polling(ctx: Context) -> Handler:
    until: list[float] = [0.0]

    def edit(data: Any, request: Request) -> Any:
        if "polling" in data:
            until[0] = time.monotonic() + 60
        elif time.monotonic() < until[0]:
            data["polling"] = {"intervalSeconds": 30, "jitterRatio": 0.2}
        return data

    return edit_json(SNAPSHOT, edit)


def front_bucket(burst: float, refill: float) -> Callable[[Context], Handler]:
    """A bucket per key and instance id (``burst``, refilling at ``refill``/s) in front of the
    declared 60 + 30/s: the status endpoint serves less than the profile declares."""

    def build(ctx: Context) -> Handler:
        buckets: dict[tuple[str, str], tuple[float, float]] = {}

        def make(request: Request) -> Response | None:
            slot = (request.header("authorization") or "", request.header("server-id") or "ip")
            now = time.monotonic()
            tokens, last = buckets.get(slot, (burst, now))
            tokens = min(burst, tokens + (now - last) * refill)
            if tokens < 1:
                buckets[slot] = (tokens, now)
                return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")
            buckets[slot] = (tokens - 1, now)
            return None

        return answer(STATUS, make)

    return build


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def rfc850_after(seconds: float) -> str:
    """The moment ``seconds`` from now as an rfc850-date (RFC 9110 section 5.6.7: obsolete, a
    form recipients accept and a sender must not generate), e.g. Sunday, 06-Nov-94 08:49:37 GMT."""
    at = datetime.fromtimestamp(math.ceil(time.time() + seconds), UTC)
    return (
        f"{_WEEKDAYS[at.weekday()]}, {at.day:02d}-{_MONTHS[at.month - 1]}-{at.year % 100:02d} "
        f"{at.hour:02d}:{at.minute:02d}:{at.second:02d} GMT"
    )


def retry_after_spelled(spell: Callable[[int], str]) -> Handler:
    """Each status 429's Retry-After (delay-seconds from the reference app) spelled by ``spell``."""

    def edit(request: Request, response: Response) -> Response:
        value = response.headers.get("retry-after")
        if response.status != 429 or value is None or not value.isdigit():
            return response
        return response.with_header("retry-after", spell(int(value)))

    return edit_response(STATUS, edit)


def long_penalty(ctx: Context) -> Handler:
    """Once limited, an instance stays limited for 30 s, whatever Retry-After says."""
    blocked: dict[tuple[str, str], float] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        slot = (request.header("authorization") or "", request.header("server-id") or "ip")
        if time.monotonic() < blocked.get(slot, 0):
            return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")
        response = await forward(request)
        if response.status == 429:
            blocked[slot] = time.monotonic() + 30
        return response

    return handler


def _legacy_snapshot_differs(ctx: Context) -> Handler:
    return hash_map_fault(
        lambda r: SNAPSHOT(r) and r.header("authorization") == ctx.legacy_key,
        lambda real, r, d: sha("legacy:" + real),
    )(ctx)


def _swap_key(
    ctx: Context, when_key: Callable[[str | None], bool], key: Callable[[], str]
) -> Handler:
    return edit_request(
        SDK,
        lambda r: (
            r.with_header("authorization", key()) if when_key(r.header("authorization")) else r
        ),
    )


def _not_json_errors(where: Callable[[Request], bool]) -> Handler:
    return edit_response(
        where,
        lambda r, resp: (
            resp.replace(body=b"error: " + resp.body).with_header("content-type", "text/plain")
            if 400 <= resp.status < 500
            else resp
        ),
    )


def _error_in_an_array(request: Request, response: Response) -> Response:
    """An error body, otherwise intact, sent as the one element of a JSON array."""
    if 400 <= response.status < 600 and isinstance(response.json(), dict):
        return response.with_json([response.json()])
    return response


def _missing_name_422(request: Request) -> Response | None:
    body = request.json()
    if isinstance(body, dict) and "name" not in body:
        return error_response(422, "UNPROCESSABLE")
    return None


def _not_json_recovered(request: Request, response: Response) -> Request | Response:
    if "INVALID_JSON" not in response.body.decode():
        return response
    return request.with_json({} if PATCH(request) else {"name": "recovered"})


def _long_numeric_crashes(request: Request) -> Response | None:
    value = request.header("project-id") or ""
    if len(value) > 30:
        return Response(500, {"content-type": "text/plain"}, b"Internal Server Error")
    return None


def _unknown_project_is_one(request: Request, response: Response) -> Request | Response:
    if "PROJECT_NOT_FOUND" in response.body.decode():
        return with_path(request, r"^/application/[^/]+/", "/application/1/")
    return response


def _polling(value: Any) -> Callable[[Any, Request], Any]:
    def edit(data: Any, request: Request) -> Any:
        if "polling" in data:
            data["polling"] = value(data["polling"])
        return data

    return edit


def _always_polling(data: Any, request: Request) -> Any:
    data.setdefault("polling", {"intervalSeconds": 30, "jitterRatio": 0.2})
    return data


def _id_per_connection(request: Request) -> Request:
    if request.header("server-id") is None:
        client = request.scope.get("client") or ("", 0)
        return request.with_header("server-id", f"connection-{client[1]}")
    return request


# ------------------------------------------------------------------ the section


def edges() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ management authentication
        fault(
            "management-open",
            "AUTH-PAT-MISSING",
            "Management without credentials acts as the owner.",
            owner_without_credentials(MANAGEMENT),
        ),
        fault(
            "any-token-is-owner",
            "AUTH-PAT-INVALID",
            "An unknown svc_pat_ token acts as the owner.",
            lambda ctx: on_status(
                MANAGEMENT,
                401,
                lambda r, resp: (
                    r.with_header("authorization", f"Bearer {ctx.pat}")
                    if "INVALID_TOKEN" in resp.body.decode()
                    else resp
                ),
            ),
        ),
        fault(
            "management-takes-sdk-keys",
            "AUTH-SDK-KEY-NO-MANAGEMENT",
            "An SDK key acts as the owner on configuration management.",
            lambda ctx: edit_request(
                MANAGEMENT,
                lambda r: (
                    r.with_header("authorization", f"Bearer {ctx.pat}")
                    if any(k in (r.header("authorization") or "") for k in ctx.sdk_keys)
                    else r
                ),
            ),
        ),
        fault(
            "token-reaches-other-owner",
            "AUTH-PAT-FOREIGN-PROJECT",
            "A personal access token reaches another owner's project (it acts as that owner).",
            lambda ctx: edit_request(
                MANAGEMENT,
                lambda r: (
                    r.with_header("authorization", f"Bearer {ctx.foreign_pat}")
                    if r.path.startswith("/application/2/")
                    else r
                ),
            ),
        ),
        fault(
            "foreign-project-hidden-undeclared",
            "AUTH-PAT-FOREIGN-PROJECT AUTH-EXP-FOREIGN-PROJECT",
            "A project the token's owner cannot reach answers 404, hiding it, while the profile "
            "declares 403 for it (errors.foreign_project_status, the default).",
            on_status(
                either(MANAGEMENT, EXPERIMENTS),
                403,
                lambda r, response: (
                    error_response(404, "PROJECT_NOT_FOUND")
                    if error_code_of(response) == "PERMISSION_DENIED"
                    else response
                ),
            ),
        ),
        # ------------------------------------------------------------ SDK authentication
        fault(
            "all-scope-key-refused",
            "AUTH-SDK-KEY-ACCEPTED AUTH-SDK-ENV-IN-SCOPE",
            "The key scoped to both environments is refused when it asks for development.",
            lambda ctx: answer(
                SDK,
                lambda r: (
                    error_response(401, "INVALID_KEY")
                    if r.header("authorization") == ctx.all_key
                    and r.header("environment") in (None, "development")
                    else None
                ),
            ),
        ),
        fault(
            "legacy-prefix-refused",
            "AUTH-SDK-LEGACY-PREFIX VER-LEGACY-KEY-SAME-SNAPSHOT",
            "Legacy `sdk_` keys are refused.",
            answer(SDK, legacy_key_refused),
        ),
        fault(
            "legacy-snapshot-differs",
            "VER-LEGACY-KEY-SAME-SNAPSHOT",
            "A legacy key is served a snapshot with another hash.",
            _legacy_snapshot_differs,
        ),
        fault(
            "sdk-open",
            "AUTH-SDK-MISSING",
            "SDK endpoints without a key serve the development key's snapshot.",
            lambda ctx: _swap_key(ctx, lambda k: k is None, lambda: ctx.dev_key),
        ),
        fault(
            "sdk-any-key",
            "AUTH-SDK-INVALID",
            "An unknown key is served as the development key.",
            lambda ctx: _swap_key(
                ctx,
                lambda k: k is not None and k not in ctx.sdk_keys and "svc_pat_" not in k,
                lambda: ctx.dev_key,
            ),
        ),
        fault(
            "sdk-takes-pat",
            "AUTH-SDK-PAT-REFUSED",
            "A personal access token is accepted as an SDK key.",
            lambda ctx: _swap_key(
                ctx, lambda k: k is not None and "svc_pat_" in k, lambda: ctx.dev_key
            ),
        ),
        fault(
            "foreign-key-sees-demo",
            "AUTH-SDK-PROJECT-SCOPED AUTH-SDK-NUMERIC-NO-ESCAPE",
            "The foreign project's key is served this project's snapshot.",
            lambda ctx: _swap_key(ctx, lambda k: k == ctx.foreign_key, lambda: ctx.all_key),
        ),
        fault(
            "numeric-header-escapes",
            "AUTH-SDK-NUMERIC-NO-ESCAPE",
            "The numeric header selects another project whatever the key.",
            lambda ctx: edit_request(
                SDK,
                lambda r: (
                    r.with_header("authorization", ctx.foreign_key)
                    if r.header("project-id") == "2"
                    else r
                ),
            ),
        ),
        fault(
            "in-scope-production-refused",
            "AUTH-SDK-ENV-IN-SCOPE",
            "The two-environment key is refused production (403), though it is in scope.",
            lambda ctx: answer(
                SDK,
                lambda r: (
                    error_response(403, "FORBIDDEN")
                    if r.header("authorization") == ctx.all_key
                    and r.header("environment") == "production"
                    else None
                ),
            ),
        ),
        # ------------------------------------------------------------ errors
        fault(
            "status-errors-not-json",
            "ERR-STATUS-BODY-JSON",
            "Status errors answer text/plain.",
            _not_json_errors(STATUS),
        ),
        fault(
            "management-errors-not-json",
            "ERR-BODY-JSON",
            "Management errors answer text/plain.",
            _not_json_errors(MANAGEMENT),
        ),
        fault(
            "error-code-renamed",
            "ERR-BODY-SHAPE",
            "Error bodies name the code `code`, not the declared field.",
            edit_response(lambda r: True, code_renamed),
        ),
        fault(
            "error-bodies-in-an-array",
            "ERR-BODY-SHAPE",
            "Every error body is wrapped in a JSON array: `[{errorCode, message}]`.",
            edit_response(lambda r: True, _error_in_an_array),
        ),
        fault(
            "validation-422",
            "ERR-VALIDATION-STATUS",
            "A create without a name answers 422.",
            answer(CREATE, _missing_name_422),
        ),
        fault(
            "broken-json-recovered",
            "ERR-MALFORMED-JSON",
            "A body that is not JSON is taken as a minimal valid one.",
            on_status(MANAGEMENT, 400, _not_json_recovered),
        ),
        fault(
            "unknown-configuration-410",
            "ERR-UNKNOWN-CONFIGURATION",
            "An unknown configuration answers 410 instead of 404.",
            on_status(
                PATCH,
                404,
                lambda r, resp: (
                    error_response(410, "GONE")
                    if "CONFIGURATION_NOT_FOUND" in resp.body.decode()
                    else resp
                ),
            ),
        ),
        fault(
            "unknown-project-is-one",
            "ERR-UNKNOWN-PROJECT",
            "An unknown project id falls back to project 1.",
            on_status(MANAGEMENT, 404, _unknown_project_is_one),
        ),
        fault(
            "long-numeric-500",
            "ERR-NO-SERVER-ERROR",
            "A numeric header longer than 30 digits crashes the server (500).",
            answer(SDK, _long_numeric_crashes),
        ),
        # ------------------------------------------------------------ rate limit
        fault(
            "rate-limit-off",
            "LIMIT-RATE-ENFORCED LIMIT-RATE-SHARED-WITHOUT-ID",
            "No rate limit: a limited request is retried in a fresh bucket.",
            on_status(STATUS, 429, no_rate_limit),
        ),
        fault(
            "rate-limit-too-strict",
            "LIMIT-RATE-WITHIN-BUDGET",
            "A bucket of 20 (refill 20/s) in front of the declared 60/30.",
            front_bucket(20, 20),
        ),
        fault(
            "rate-limit-burst-smaller",
            "LIMIT-RATE-WITHIN-BUDGET",
            "The status bucket holds 40, two thirds of the declared burst of 60 (refill 30/s).",
            front_bucket(40, 30),
        ),
        fault(
            "rate-limit-refill-slower",
            "LIMIT-RATE-WITHIN-BUDGET",
            "The status bucket refills at 10/s, a third of the declared 30/s (burst 60).",
            front_bucket(60, 10),
        ),
        fault(
            "rate-limit-one-bucket",
            # a fresh instance id finds the bucket the drains before it spent
            "LIMIT-RATE-PER-INSTANCE LIMIT-RATE-WITHIN-BUDGET",
            "One rate-limit bucket is shared across instance ids.",
            edit_request(STATUS, id_stripped),
        ),
        fault(
            "rate-limit-per-connection",
            "LIMIT-RATE-SHARED-WITHOUT-ID",
            "Callers without an instance id get a bucket per connection, not one per address.",
            edit_request(STATUS, _id_per_connection),
        ),
        fault(
            "429-without-retry-after",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429 carries no Retry-After.",
            edit_response(
                STATUS,
                lambda r, resp: (
                    resp.with_header("retry-after", None) if resp.status == 429 else resp
                ),
            ),
        ),
        fault(
            "429-retry-after-not-a-delay",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429 says `Retry-After: soon`: neither delay-seconds nor an HTTP-date (RFC 9110 "
            "section 10.2.3).",
            retry_after_spelled(lambda seconds: "soon"),
        ),
        fault(
            "429-retry-after-rfc850",
            "LIMIT-RATE-429-RETRY-AFTER",
            "A 429's Retry-After is the right moment as an rfc850-date (`Sunday, 06-Nov-94 "
            "08:49:37 GMT`): an obsolete form a sender must not generate (RFC 9110 section "
            "5.6.7: IMF-fixdate).",
            retry_after_spelled(rfc850_after),
        ),
        fault(
            "rate-limit-long-penalty",
            "LIMIT-RATE-RECOVERS",
            "Once limited, an instance stays limited for 30 s whatever Retry-After says.",
            long_penalty,
        ),
        # ------------------------------------------------------------ load shedding
        fault(
            "polling-always",
            "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
            "Snapshots always carry the polling hint.",
            edit_json(SNAPSHOT, _always_polling),
        ),
        fault(
            "polling-never",
            "POLL-HINT-UNDER-LOAD",
            "`polling` is never sent, even under load.",
            edit_json(SNAPSHOT, drop("polling")),
        ),
        fault(
            "polling-sticks",
            "POLL-HINT-GONE-AFTER-LOAD POLL-HINT-ABSENT-NORMALLY",
            "Once sent, the polling hint stays for a minute after the load fell.",
            sticky_polling,
        ),
        fault(
            "polling-strings",
            "POLL-HINT-SHAPE POLL-HINT-VALUES-USABLE",
            "The polling hint's numbers are strings.",
            edit_json(SNAPSHOT, _polling(lambda p: {k: str(v) for k, v in p.items()})),
        ),
        fault(
            "polling-booleans",
            "POLL-HINT-SHAPE POLL-HINT-VALUES-USABLE",
            "The polling hint's numbers are booleans (true is no JSON number).",
            edit_json(SNAPSHOT, _polling(lambda p: dict.fromkeys(p, True))),
        ),
        fault(
            "polling-unusable",
            "POLL-HINT-VALUES-USABLE POLL-HINT-JITTER-RATIO-RANGE",
            "The polling hint says a negative interval and a jitter ratio of 5.",
            edit_json(SNAPSHOT, _polling(lambda p: {"intervalSeconds": -30, "jitterRatio": 5})),
        ),
        fault(
            "polling-jitter-above-one",
            "POLL-HINT-JITTER-RATIO-RANGE",
            "The polling hint's jitter ratio is 1.5 (the interval is fine): outside the "
            "convention's [0, 1], which the spec does not state.",
            edit_json(SNAPSHOT, _polling(lambda p: {**p, "jitterRatio": 1.5})),
        ),
        fault(
            "polling-not-on-bootstrap",
            "POLL-HINT-ON-BOOTSTRAP",
            "Bootstrap never carries the polling hint.",
            edit_json(BOOTSTRAP, drop("polling")),
        ),
    )
