"""The *identity* section: defects of the bootstrap with identity (what one unit is served).

Experiments evaluated without identity, changesets not merged, assignments renamed, a terminated
experiment still evaluated, the unit type ignored, untouched configurations personalised, and a
per-unit ETag that is the status snapshot's.
"""

from __future__ import annotations

from typing import Any

from faulty.asgi import Forward, Handler, Request, Response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    EXP_TERMINATE,
    Fault,
    edit_json,
    edit_request,
    fault,
    ok,
    with_identity,
)


def base_content_for_units(ctx: Context) -> Handler:
    """With identity, each configuration document is the base one (no changeset merged)."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not with_identity(request) or response.status != 200:
            return response
        base = await forward(
            request.with_header("unit-id", None).with_header("if-none-match", None)
        )
        documents = {
            e.get("id"): e.get("configuration")
            for e in (base.json() or {}).get("configurations", [])
        }
        data = response.json()
        for entry in data.get("configurations", []):
            entry["configuration"] = documents.get(entry.get("id"), entry.get("configuration"))
        return response.with_json(data)

    return handler


def identity_etag_is_status(ctx: Context) -> Handler:
    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if with_identity(request) and response.status == 200:
            base = await forward(
                request.with_header("unit-id", None).with_header("if-none-match", None)
            )
            if "etag" in base.headers:
                return response.with_header("etag", base.headers["etag"])
        return response

    return handler


def terminated_still_evaluated(ctx: Context) -> Handler:
    """A unit keeps getting its last per-unit answer while the experiment in it is terminated."""
    last: dict[tuple[str, str], Response] = {}
    terminated: set[str] = set()

    def mentions(response: Response) -> set[str]:
        data = response.json() or {}
        return {str(a.get("experimentId")) for a in data.get("assignments", []) or []}

    async def handler(request: Request, forward: Forward) -> Response:
        if EXP_TERMINATE(request):
            response = await forward(request)
            if ok(response):
                terminated.add(request.path.split("/")[-2])
            return response
        if not with_identity(request):
            return await forward(request)
        slot = (request.header("unit-id") or "", request.header("authorization") or "")
        cached = last.get(slot)
        if cached is not None and mentions(cached) & terminated:
            return cached
        response = await forward(request.with_header("if-none-match", None))
        if response.status == 200:
            last[slot] = response
        return response

    return handler


def _unit_type_ignored(request: Request) -> Request:
    return request.with_header("unit-type", None)


def _untouched_configs_changed(data: Any, request: Request) -> Any:
    touched = {a.get("configurationId") for a in data.get("assignments", []) or []}
    for entry in data.get("configurations", []):
        if entry.get("id") not in touched and isinstance(entry.get("configuration"), dict):
            entry["configuration"]["unit"] = request.header("unit-id")
    return data


# ------------------------------------------------------------------ the section


def identity() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ bootstrap with identity
        fault(
            "no-identity-evaluates",
            "SDK-BOOTSTRAP-NO-IDENTITY-BASE SDK-BOOTSTRAP-HASH-EQUALS-STATUS",
            "A bootstrap without identity evaluates experiments for an anonymous unit.",
            edit_request(
                lambda r: BOOTSTRAP(r) and r.header("unit-id") is None,
                lambda r: r.with_header("unit-id", "anonymous"),
            ),
        ),
        fault(
            "changeset-not-merged",
            "SDK-BOOTSTRAP-ID-MERGE EXP-MANUAL-ASSIGNMENT-CONTENT SDK-BOOTSTRAP-ID-ONLY-ACTIVE "
            "EXP-UNENROLL-BASE-CONTENT",
            "With identity, the unit's changesets are not merged: documents are the base ones.",
            base_content_for_units,
        ),
        fault(
            "assignments-renamed",
            "SDK-BOOTSTRAP-ID-METADATA",
            "Per-unit bootstrap names its assignments under `experiments` instead.",
            edit_json(
                with_identity,
                lambda d, r: {
                    **{k: v for k, v in d.items() if k != "assignments"},
                    "experimentAssignments": d.get("assignments"),
                },
            ),
        ),
        fault(
            "terminated-still-evaluated",
            "SDK-BOOTSTRAP-ID-ONLY-ACTIVE",
            "A unit keeps the content of a terminated experiment it was in.",
            terminated_still_evaluated,
        ),
        fault(
            "unit-type-ignored",
            "SDK-BOOTSTRAP-ID-UNIT-TYPE",
            "The unit-type header is ignored: every unit is a user.",
            edit_request(BOOTSTRAP, _unit_type_ignored),
        ),
        fault(
            "untouched-configs-personalised",
            "SDK-BOOTSTRAP-ID-UNTOUCHED-CONFIGS",
            "Configurations without an experiment get a per-unit member.",
            edit_json(with_identity, _untouched_configs_changed),
        ),
        fault(
            "unit-etag-is-status-etag",
            "SDK-BOOTSTRAP-ID-ETAG-EQUALS-HASH",
            "Per-unit bootstrap sends the base snapshot's ETag, not its own hash.",
            identity_etag_is_status,
        ),
    )
