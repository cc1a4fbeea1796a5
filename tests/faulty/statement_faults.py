"""The *statement-faults* section: one defect for each statement of the specification whose other
faults all break more than it (docs/trace.md, "0 break only this"). Each breaks that statement's
requirements and nothing else: an experiment under way that reads back under another word, a
member filter that loses unenrolled units, ``studio`` misread by a key scoped to both
environments, and an instance's exhausted bucket that refuses the other instances for a moment.

Statements no such fault can reach (each defect of theirs breaks a requirement beyond them):

- S24, S62 (deletedAt present, ISO 8601 or null): the record shape (CFG-CREATE-RECORD-SHAPE)
  judges deletedAt with the same pattern on every record, and any change to a live record's
  ``deletedAt: null`` departs from the convention CFG-RECORD-DELETED-AT-LIVE.
- S46 (polling: two numbers): POLL-HINT-VALUES-USABLE asks the same two fields to be numbers.
- S116, S118 (the owner's PAT, svc_pat_): every management and experiment requirement reaches
  its endpoint with that token; refusing it refuses them.
- S123 (svc_pk_ accepted): AUTH-SDK-ENV-IN-SCOPE sends every key in each environment of its scope
  and asks 200, so a refused svc_pk_ key breaks it as well.
- S138 (the v2 segment): VER-PATH-V2 is judged by serving the documented paths, which every
  other requirement of those endpoints uses.
"""

from __future__ import annotations

import time

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import EXP_GET, EXP_MEMBERS, STATUS, Fault, edit_json, edit_request, fault

PREFIX = "st-"
LIMITED_SECONDS = 0.05  # how long one instance's 429 refuses the others


def _under_way_reads_active(data: object, request: Request) -> object:
    """An experiment under way reads back ``active`` (the member state's word), not ``running``;
    a terminated one reads ``terminated``."""
    if isinstance(data, dict) and data.get("status") == "running":
        return {**data, "status": "active"}
    return data


def _unenrolled_filter_empty(data: object, request: Request) -> object:
    """The members list filtered by the unenrolled state lists nobody."""
    if request.param("status") == "unenrolled" and isinstance(data, dict):
        return {**data, "items": [], "nextCursor": None}
    return data


def _studio_by_key_scope(ctx: Context) -> Handler:
    """A key scoped to both environments resolves ``studio`` to the last one of its scope,
    production (a key scoped to development alone reads it right)."""

    def edit(request: Request) -> Request:
        if request.header("authorization") in (ctx.all_key, ctx.legacy_key) and (
            (request.header("environment") or "").strip() == "studio"
        ):
            return request.with_header("environment", "production")
        return request

    return edit_request(lambda r: r.path.startswith("/sdk/"), edit)


def _limited_instance_blocks_others() -> Handler:
    """Per-instance buckets, but an instance refused in the last ``LIMITED_SECONDS`` makes the
    server refuse every other instance too (an overload switch in front of the buckets)."""
    refused_at: dict[str, float] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        instance = request.header("server-id") or ""
        response = await forward(request)
        now = time.monotonic()
        if response.status == 429:
            refused_at[instance] = now
            return response
        if any(i != instance and now - t < LIMITED_SECONDS for i, t in refused_at.items()):
            refused = error_response(429, "RATE_LIMITED")
            return refused.with_header("retry-after", "1")
        return response

    return handle


def statement_faults() -> tuple[Fault, ...]:
    return (
        fault(
            f"{PREFIX}under-way-reads-active",
            "EXP-TERMINATE",
            "Getting an experiment under way shows it `active`, not `running` (terminating it "
            "works and shows `terminated`).",
            edit_json(EXP_GET, _under_way_reads_active),
            watch="EXP-GET EXP-LIST EXP-CREATE EXP-UNKNOWN-ID",
        ),
        fault(
            f"{PREFIX}unenrolled-filter-empty",
            "EXP-UNENROLL",
            "Unenroll works and the unfiltered member list shows it, but the list filtered by "
            "the unenrolled state is empty.",
            edit_json(EXP_MEMBERS, _unenrolled_filter_empty),
            watch="EXP-MEMBERS EXP-REACTIVATE EXP-MANUAL-ASSIGNMENT",
        ),
        fault(
            f"{PREFIX}studio-by-key-scope",
            "SDK-HDR-ENV-STUDIO-SYNONYM",
            "A key scoped to both environments reads `studio` as production, on every SDK "
            "endpoint (a key scoped to development alone reads it as development).",
            _studio_by_key_scope,
            watch="SDK-BOOTSTRAP-MATCHES-STATUS AUTH-SDK-ENV-IN-SCOPE AUTH-SDK-LEGACY-PREFIX "
            "VER-LEGACY-KEY-SAME-SNAPSHOT",
        ),
        fault(
            f"{PREFIX}limited-instance-blocks-others",
            "LIMIT-RATE-PER-INSTANCE",
            f"Each instance has its bucket, but for {LIMITED_SECONDS:g} s after one instance is "
            "refused every other instance is refused too (429 with Retry-After).",
            lambda ctx: _limited_instance_blocks_others(),
        ),
    )
