"""The *edges* section: authentication and errors (rate limiting and load shedding are the
*rate-limits* section's, ``faulty.rate_limits``, listed right after it).

Management and SDK credentials accepted or refused wrongly (open endpoints, any token or key,
another owner's project, the legacy key prefix, key scopes), and error answers that are not JSON
or use other codes or statuses.
"""

from __future__ import annotations

from collections.abc import Callable

from faulty.asgi import Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
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
    edit_request,
    edit_response,
    either,
    error_code_of,
    fault,
    hash_map_fault,
    legacy_key_refused,
    on_status,
    owner_without_credentials,
    sha,
    with_path,
)


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
    )
