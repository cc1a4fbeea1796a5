"""The *spaces* section: defects in the parts of a stated rule's space the kit once left untried
(the specification audit's "weaker than their own requirement text"): the bootstrap's 304 beyond
If-None-Match, a legacy key on bootstrap, project scoping on bootstrap, a token's reach on
patch, the anonymous bucket across keys, and the polling hint's absence on every snapshot form
and environment. Each keeps every other part of its rule, so only judging the whole space
catches it.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    CREATE,
    EXPERIMENTS,
    PATCH,
    STATUS,
    Fault,
    answer,
    edit_json,
    edit_request,
    edit_response,
    fault,
    legacy_key_refused,
    with_path,
    without_identity,
)

INSTANCE_HEADER = "server-id"  # the reference's instance id header


def _any_hash_not_modified(request: Request) -> Response | None:
    """A bodiless 304 for any hash a bootstrap without identity carries."""
    sent = request.header("if-none-match") or request.param("hash")
    return Response(304, {}, b"") if sent and without_identity(request) else None


def _anonymous_bucket_per_key(request: Request) -> Request:
    """A status poll without an instance id spends a bucket of its key alone: the server gives
    it an instance id made of the key (so with one key it is one bucket, as it should be)."""
    if request.header(INSTANCE_HEADER) is not None:
        return request
    key = request.header("authorization") or ""
    return request.with_header(INSTANCE_HEADER, "anon-" + sha256(key.encode()).hexdigest()[:16])


def _hint_always(data: Any, request: Request) -> Any:
    """The polling hint on every answer, shedding or not."""
    if isinstance(data, dict):
        data.setdefault("polling", {"intervalSeconds": 30, "jitterRatio": 0.2})
    return data


def _in_production(request: Request) -> bool:
    return STATUS(request) and request.header("environment") == "production"


def _foreign_patch_lands_home(ctx: Context) -> Handler:
    """A patch through another project's path is applied to the token's own project."""
    return edit_request(
        PATCH,
        lambda r: (
            with_path(r, r"^/application/2/", "/application/1/").with_header("environment_id", "1")
            if r.path.startswith("/application/2/")
            else r
        ),
    )


async def _nameless_create_kept(request: Request, forward: Forward) -> Response:
    """A create without a string name is refused, but made under a name of the server's own."""
    body = request.json()
    if not CREATE(request) or not isinstance(body, dict) or isinstance(body.get("name"), str):
        return await forward(request)
    await forward(request.with_json({**body, "name": "unnamed"}))
    return error_response(400, "VALIDATION_FAILED")


def _lenient_experiment_project(request: Request) -> Request:
    """A project id that is no number read as the project 1 on the experiment paths."""
    return with_path(request, r"^/application/[^/]*[^/0-9][^/]*/", "/application/1/")


async def _documents_renamed_in_status(request: Request, forward: Forward) -> Response:
    """Each status entry carries its document, under ``content`` (not the bootstrap's name)."""
    response = await forward(request)
    if not STATUS(request) or response.status != 200:
        return response
    boot = await forward(request.replace(path="/sdk/v2/bootstrap").without_param("hash"))
    documents = {
        e.get("id"): e.get("configuration")
        for e in (boot.json() or {}).get("configurations", [])
        if isinstance(e, dict)
    }
    data = response.json()
    for entry in data.get("configurations", []):
        entry["content"] = documents.get(entry.get("id"))
    return response.with_json(data)


def spaces() -> tuple[Fault, ...]:
    return (
        fault(
            "status-documents-under-another-name",
            "SDK-STATUS-NO-DOCUMENTS",
            "Status entries carry each configuration's document under `content`.",
            _documents_renamed_in_status,
        ),
        fault(
            "experiment-paths-lenient-project-id",
            "EXP-PATH-IDS-NUMERIC",
            "The experiment endpoints read a project id that is no number as project 1 (the "
            "configuration endpoints refuse it).",
            edit_request(EXPERIMENTS, _lenient_experiment_project),
        ),
        fault(
            "nameless-create-refused-but-made",
            "CFG-CREATE-NAME-REQUIRED",
            "A create without a string name answers 400 and still makes the configuration.",
            _nameless_create_kept,
        ),
        fault(
            "bootstrap-304-without-etag",
            "SDK-BOOTSTRAP-304",
            "A bootstrap 304 carries no ETag (the status 304 keeps it).",
            edit_response(
                BOOTSTRAP,
                lambda r, resp: resp.with_header("etag", None) if resp.status == 304 else resp,
            ),
        ),
        fault(
            "bootstrap-304-for-any-hash",
            "SDK-BOOTSTRAP-304",
            "Bootstrap answers 304 to any If-None-Match or ?hash=, current or not.",
            answer(BOOTSTRAP, _any_hash_not_modified),
        ),
        fault(
            "legacy-key-refused-on-bootstrap",
            "AUTH-SDK-LEGACY-PREFIX",
            "A legacy `sdk_` key is served on status and refused on bootstrap.",
            answer(BOOTSTRAP, legacy_key_refused),
        ),
        fault(
            "foreign-key-bootstraps-demo",
            "AUTH-SDK-PROJECT-SCOPED",
            "The foreign project's key is served this project's bootstrap (status stays scoped).",
            lambda ctx: edit_request(
                BOOTSTRAP,
                lambda r: (
                    r.with_header("authorization", ctx.all_key)
                    if r.header("authorization") == ctx.foreign_key
                    else r
                ),
            ),
        ),
        fault(
            "anonymous-bucket-per-key",
            "LIMIT-RATE-SHARED-WITHOUT-ID",
            "S133, spec 8: `Without that id, all servers behind one egress IP share a single "
            "bucket`. The server keeps one bucket per instance id whatever the key, and says so "
            "(rate_limit.scope: instance), but polls without an id get a bucket per key: "
            "servers behind one address with different keys are served several budgets.",
            edit_request(STATUS, _anonymous_bucket_per_key),
            profile={"rate_limit": {"scope": "instance"}},
            settings={"rate_scope": "instance"},
        ),
        fault(
            "polling-on-bootstrap-always",
            "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
            "S48, spec 2.4: `polling | ... | present only while the backend is shedding load`. "
            "Bootstrap answers carry the polling hint all the time; status answers carry it "
            "only while shedding.",
            edit_json(BOOTSTRAP, _hint_always),
        ),
        fault(
            "polling-in-production-always",
            "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
            "S48, spec 2.4: `polling | ... | present only while the backend is shedding load`. "
            "Production's status answers carry the polling hint all the time; development's "
            "only while shedding.",
            edit_json(_in_production, _hint_always),
        ),
        fault(
            "token-patches-across-projects",
            "AUTH-PAT-FOREIGN-PROJECT",
            "A patch sent through a project the owner cannot reach is applied to the owner's "
            "configuration of that id (create stays refused).",
            _foreign_patch_lands_home,
        ),
    )
