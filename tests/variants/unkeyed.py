"""Correct choices no profile key can declare today (issue 37's classes): each is kept with a
strict xfail naming the missing key or the kit defect until the kit judges it conformant."""

from __future__ import annotations

from faulty.asgi import Forward, Handler, Request, Response, error_response

from variants.rewrite import CONFIGURATION_LIST, SDK, handler
from variants.variant import Variant, pair


def _unique_names() -> Handler:
    """A second configuration of the same name in a project is refused with 409."""
    seen: set[tuple[str, str]] = set()

    async def handle(request: Request, forward: Forward) -> Response:
        data = request.json()
        key = None
        if (
            request.method == "POST"
            and CONFIGURATION_LIST.fullmatch(request.path)
            and isinstance(data, dict)
        ):
            key = (request.path, str(data.get("name")))
            if key in seen:
                return error_response(409, "NAME_TAKEN")
        response = await forward(request)
        if key is not None and response.status < 300:
            seen.add(key)
        return response

    return handle


def _alias_any_case(request: Request) -> Request:
    """Environment aliases read case-insensitively (``Production`` is production)."""
    value = request.header("environment")
    if value is not None and value.lower() in ("development", "production", "studio"):
        return request.with_header("environment", value.lower())
    return request


def _problem(request: Request, response: Response) -> Response:
    """An SDK error as RFC 9457 problem details (the spec says 'a JSON body' there)."""
    data = response.json()
    if not SDK.fullmatch(request.path) or response.status < 400 or not isinstance(data, dict):
        return response
    body = {
        "type": "about:blank",
        "title": data.get("message", ""),
        "status": response.status,
        **data,
    }
    return response.with_json(body).with_header("content-type", "application/problem+json")


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "unique-configuration-names-409",
        "refuses a second configuration of the same name with 409: spec 2.2 says only 'name: "
        "string, required'",
        frozenset({"CFG-CREATE-NEW-ID", "CFG-CREATE-MINIMAL-BODY"}),
        lambda: _unique_names(),
        watch=frozenset(
            {"CFG-CREATE-NEW-ID", "CFG-PATCH-RECORD-SHAPE", "SDK-STATUS-LISTS-CONFIGURATIONS"}
        ),
    ),
    *pair(
        "environment-alias-any-case",
        "reads the environment alias case-insensitively ('Production' is production, scope kept): "
        "spec 4.3 lists the values and says nothing of case",
        handler(rewrite=_alias_any_case),
        {"headers": {"environment_case": "insensitive"}},
        keeps=frozenset({"SDK-HDR-ENV-PRODUCTION", "SDK-HDR-ENV-UNKNOWN-VALUE"}),
        watch=frozenset({"SDK-HDR-ENV-PRODUCTION"}),
    ),
    *pair(
        "sdk-errors-problem-json",
        "answers SDK errors as application/problem+json (RFC 9457), keeping its code field: "
        "spec 7 says 'a JSON body' on the SDK endpoints",
        handler(answer=_problem),
        {"errors": {"media_type": "application/problem+json"}},
        keeps=frozenset({"ERR-BODY-JSON", "ERR-STATUS-BODY-JSON"}),
        watch=frozenset({"ERR-BODY-JSON", "AUTH-SDK-ENV-IN-SCOPE", "SDK-STATUS-200-SNAPSHOT"}),
    ),
)
