"""The *experiment edges* section: content type, unknown ids and authentication of experiments.

Experiment answers that are not JSON, an unknown experiment answering 400, and the experiment
endpoints' credentials: open to anyone, any ``svc_pat_`` token taken as the owner's, another
owner's project served from one's own, SDK keys accepted.
"""

from __future__ import annotations

from faulty.asgi import Request, error_response
from faulty.context import Context
from faulty.recipes import (
    EXP_GET,
    EXPERIMENTS,
    Fault,
    edit_request,
    edit_response,
    fault,
    on_status,
    owner_without_credentials,
    with_path,
)


def _foreign_project_rewritten(request: Request) -> Request:
    request = with_path(request, r"^/application/2/", "/application/1/")
    return (
        request.with_header("environment_id", "1")
        if request.header("environment_id") == "3"
        else request
    )


def _unknown_pat(ctx: Context, header: str | None) -> bool:
    """``Bearer svc_pat_...`` with a token neither the owner nor the foreign owner holds."""
    token = (header or "").removeprefix("Bearer ")
    return (
        token != header
        and token.startswith("svc_pat_")
        and token
        not in (
            ctx.pat,
            ctx.foreign_pat,
        )
    )


# ------------------------------------------------------------------ the section


def experiment_edges() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ experiment answers
        fault(
            "experiments-not-json",
            "EXP-RESPONSE-CONTENT-TYPE-JSON",
            "Get experiment answers Content-Type text/plain.",
            edit_response(EXP_GET, lambda r, resp: resp.with_header("content-type", "text/plain")),
        ),
        fault(
            "unknown-experiment-400",
            "EXP-UNKNOWN-ID",
            "An unknown experiment answers 400 instead of 404.",
            on_status(
                EXPERIMENTS,
                404,
                lambda r, resp: (
                    error_response(400, "INVALID_EXPERIMENT")
                    if "EXPERIMENT_NOT_FOUND" in resp.body.decode()
                    else resp
                ),
            ),
        ),
        # ------------------------------------------------------------ experiment authentication
        fault(
            "experiments-open",
            "AUTH-EXP-MISSING",
            "Experiment endpoints without credentials act as the owner.",
            owner_without_credentials(EXPERIMENTS),
        ),
        fault(
            "experiments-any-pat-is-owner",
            "AUTH-EXP-INVALID",
            "Experiment endpoints take any Bearer svc_pat_ token no owner holds as the owner's; a"
            " missing header and tokens without the prefix are still refused.",
            lambda ctx: edit_request(
                EXPERIMENTS,
                lambda r: (
                    r.with_header("authorization", f"Bearer {ctx.pat}")
                    if _unknown_pat(ctx, r.header("authorization"))
                    else r
                ),
            ),
        ),
        fault(
            "experiments-foreign-project",
            "AUTH-EXP-FOREIGN-PROJECT",
            "Experiments of another owner's project are served from one's own.",
            edit_request(EXPERIMENTS, _foreign_project_rewritten),
        ),
        fault(
            "experiments-take-sdk-keys",
            "AUTH-EXP-SDK-KEY-REFUSED",
            "An SDK key acts as the owner on experiment endpoints.",
            lambda ctx: edit_request(
                EXPERIMENTS,
                lambda r: (
                    r.with_header("authorization", f"Bearer {ctx.pat}")
                    if any(k in (r.header("authorization") or "") for k in ctx.sdk_keys)
                    else r
                ),
            ),
        ),
    )
