"""The *configurations* section: defects of creating a configuration and of the record it answers.

A create that refuses, loses or mangles what it was sent (name, content, comments, extra
properties, key order) or reuses an id; a record with a wrong field (project, timestamps, a
deletion mark, a content hash that ignores the content); an empty patch that moves the hash or is
refused; management answers that are not JSON; and management requests the server should refuse
but serves (no environment id, an environment of another project, lenient path ids). The defects
of ``PATCH`` itself are in ``faulty.patches``.
"""

from __future__ import annotations

import re
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    CREATE,
    MANAGEMENT,
    PATCH,
    Fault,
    answer,
    drop,
    edit_json,
    edit_request,
    edit_request_json,
    edit_response,
    either,
    fault,
    ok,
    set_field,
    sha,
    with_path,
)


def sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


def _year_earlier(value: Any) -> Any:
    match = re.match(r"(\d{4})(.*)", str(value))
    return f"{int(match[1]) - 1}{match[2]}" if match else value


def _lenient_project_id(request: Request) -> Request:
    return with_path(request, r"^/application/[^/]*[^/0-9][^/]*/", "/application/1/")


def not_iso(value: Any) -> Any:
    # "2026-11-22T04:00:00.000Z" -> "22/11/2026 04:00:00"
    match = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d:\d\d:\d\d)", str(value))
    return f"{match[3]}/{match[2]}/{match[1]} {match[4]}" if match else value


def _refuse_extras(request: Request) -> Response | None:
    body = request.json()
    if isinstance(body, dict) and any(str(key).startswith("x") for key in body):
        return error_response(400, "UNKNOWN_PROPERTY")
    return None


def basic_format(value: Any) -> Any:
    # "2026-11-22T04:00:00.000Z" -> "20261122T040000,000Z": ISO 8601's basic format, a comma
    match = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z$", str(value))
    if not match:
        return value
    fraction = f",{match[7]}" if match[7] else ""
    return f"{match[1]}{match[2]}{match[3]}T{match[4]}{match[5]}{match[6]}{fraction}Z"


def content_hash_frozen(ctx: Context) -> Handler:
    """contentHash shown is per configuration id, constant. A server whose hash never moves
    finds every baseHash equal to it "current", so a baseHash equal to the frozen value is
    dropped: the patch applies unconditionally (deterministically, however writers overlap)."""

    async def handler(request: Request, forward: Forward) -> Response:
        if PATCH(request):
            body = request.json()
            config_id = request.path.rsplit("/", 1)[-1]
            if isinstance(body, dict) and body.get("baseHash") == sha(f"id:{config_id}"):
                del body["baseHash"]
                request = request.with_json(body)
        response = await forward(request)
        data = response.json()
        if (CREATE(request) or PATCH(request)) and ok(response) and isinstance(data, dict):
            data["contentHash"] = sha(f"id:{data.get('id')}")
            response = response.with_json(data)
        return response

    return handler


def reused_id(ctx: Context) -> Handler:
    first: list[Any] = []

    def edit(data: Any, request: Request) -> Any:
        if first:
            data["id"] = first[0]
        else:
            first.append(data.get("id"))
        return data

    return edit_json(CREATE, edit)


DEV_ENV = "1"

# ------------------------------------------------------------------ the section


def configurations() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ configuration create
        fault(
            "create-record-lacks-description",
            "CFG-CREATE-RECORD-SHAPE",
            "Create answers a record without `description`.",
            edit_json(CREATE, drop("description")),
        ),
        fault(
            "create-refuses-name-only",
            "CFG-CREATE-MINIMAL-BODY",
            "A create body holding only `name` is refused with 400.",
            answer(
                CREATE,
                lambda r: (
                    error_response(400, "INVALID_REQUEST")
                    if isinstance(r.json(), dict) and set(r.json()) == {"name"}
                    else None
                ),
            ),
        ),
        fault(
            "create-name-optional",
            "CFG-CREATE-NAME-REQUIRED ERR-VALIDATION-STATUS",
            "A create body without a string `name` gets a made-up name and is created.",
            edit_request_json(
                CREATE,
                lambda b: (
                    {**b, "name": "unnamed"}
                    if isinstance(b, dict) and not isinstance(b.get("name"), str)
                    else b
                ),
            ),
        ),
        fault(
            "create-content-mangled",
            "CFG-CREATE-CONTENT-ROUNDTRIP SDK-BOOTSTRAP-DOCUMENTS-CURRENT",
            "Create answers the content with arrays reversed and null replaced by {}.",
            edit_json(
                CREATE,
                set_field(
                    "configuration",
                    lambda d: (
                        {}
                        if d.get("configuration") is None
                        else list(reversed(d["configuration"]))
                        if isinstance(d.get("configuration"), list)
                        else d.get("configuration")
                    ),
                ),
            ),
        ),
        fault(
            "create-drops-comments",
            "CFG-CREATE-PRIVACY-AND-COMMENTS",
            "Create keeps no comments: the record's `comments` is always {}.",
            edit_json(CREATE, set_field("comments", lambda d: {})),
        ),
        fault(
            "create-refuses-extra-properties",
            "CFG-CREATE-EXTRA-PROPERTIES",
            "A create whose body carries a top-level property the server does not know "
            "(`xString`, ...) is refused 400: spec 2.1 says the record accepts them.",
            answer(CREATE, _refuse_extras),
        ),
        fault(
            "create-drops-extra-properties",
            "CFG-CREATE-EXTRA-PROPERTIES-ECHOED",
            "Extra top-level properties of the create body are not returned.",
            edit_json(
                CREATE,
                lambda d, r: {
                    k: v
                    for k, v in d.items()
                    if k not in (r.json() or {})
                    or k
                    in ("name", "alias", "description", "configuration", "privateKeys", "comments")
                },
            ),
        ),
        fault(
            "create-reuses-id",
            "CFG-CREATE-NEW-ID",
            "Every create after the first answers the first record's id.",
            reused_id,
        ),
        fault(
            "create-sorts-keys",
            "CFG-CREATE-KEY-ORDER-KEPT",
            "Create answers the content with object members sorted by name.",
            edit_json(
                CREATE, set_field("configuration", lambda d: sorted_keys(d.get("configuration")))
            ),
        ),
        fault(
            "record-wrong-project",
            "CFG-RECORD-IDS-MATCH-REQUEST",
            "Records name an environment id off by 100.",
            edit_json(
                either(CREATE, PATCH),
                set_field("environmentId", lambda d: (d.get("environmentId") or 0) + 100),
            ),
        ),
        fault(
            "record-timestamps-not-iso",
            "CFG-RECORD-TIMESTAMPS CFG-RECORD-UPDATED-AT-ADVANCES CFG-CREATE-RECORD-SHAPE "
            "CFG-PATCH-RECORD-SHAPE",
            "Record timestamps are written DD/MM/YYYY hh:mm:ss.",
            edit_json(
                either(CREATE, PATCH),
                lambda d, r: {
                    **d,
                    "createdAt": not_iso(d.get("createdAt")),
                    "updatedAt": not_iso(d.get("updatedAt")),
                },
            ),
        ),
        fault(
            "record-timestamps-basic-format",
            "CFG-RECORD-TIMESTAMPS-RFC3339",
            "Record timestamps in ISO 8601's basic format with a comma fraction "
            "(`20261122T040000,000Z`): ISO 8601 (the interface), not RFC 3339 (the convention).",
            edit_json(
                either(CREATE, PATCH),
                lambda d, r: {
                    **d,
                    "createdAt": basic_format(d.get("createdAt")),
                    "updatedAt": basic_format(d.get("updatedAt")),
                },
            ),
        ),
        fault(
            "record-deleted-at-not-a-date",
            "CFG-RECORD-TIMESTAMPS CFG-RECORD-DELETED-AT-LIVE CFG-CREATE-RECORD-SHAPE "
            "CFG-PATCH-RECORD-SHAPE",
            'Live records carry `deletedAt: "never"`: neither null nor an ISO 8601 date-time.',
            edit_json(either(CREATE, PATCH), set_field("deletedAt", lambda d: "never")),
        ),
        fault(
            "record-marked-deleted",
            "CFG-RECORD-DELETED-AT-LIVE",
            "Live records carry `deletedAt` equal to `createdAt`.",
            edit_json(either(CREATE, PATCH), set_field("deletedAt", lambda d: d.get("createdAt"))),
        ),
        fault(
            "patch-updated-at-backwards",
            "CFG-RECORD-UPDATED-AT-ADVANCES",
            "Patch answers `updatedAt` a year before `createdAt`.",
            edit_json(PATCH, set_field("updatedAt", lambda d: _year_earlier(d.get("createdAt")))),
        ),
        fault(
            "content-hash-ignores-content",
            "CFG-CONTENT-HASH-TRACKS-CONTENT CFG-PATCH-409-STALE-BASE "
            "CFG-PATCH-409-NOTHING-CHANGES CFG-PATCH-CONCURRENT-ONE-WINS",
            "contentHash is a function of the configuration id only, so it never moves and a "
            "stale base can no longer be told from the current one (concurrent writers all win).",
            content_hash_frozen,
        ),
        fault(
            "empty-patch-moves-hash",
            "CFG-CONTENT-HASH-STABLE",
            "An empty patch answers a new contentHash (as if it had written something).",
            edit_json(
                PATCH,
                lambda d, r: (
                    {**d, "contentHash": sha("x" + str(d.get("contentHash")))}
                    if r.json() == {}
                    else d
                ),
            ),
        ),
        fault(
            "empty-patch-refused",
            "CFG-PATCH-EMPTY-BODY",
            "An empty patch body is refused with 400.",
            answer(
                PATCH, lambda r: error_response(400, "INVALID_PATCH") if r.json() == {} else None
            ),
        ),
        fault(
            "management-not-json",
            "CFG-RESPONSE-CONTENT-TYPE-JSON",
            "A successful create answers Content-Type text/plain.",
            edit_response(
                CREATE,
                lambda r, resp: (
                    resp.with_header("content-type", "text/plain") if ok(resp) else resp
                ),
            ),
        ),
        fault(
            "management-content-type-spaced",
            "CFG-RESPONSE-CONTENT-TYPE-JSON",
            "Successful creates and patches say `Content-Type: application/json; charset = "
            "utf-8`: whitespace around a parameter's `=` is not a media-type (RFC 9110 section "
            "5.6.6).",
            edit_response(
                MANAGEMENT,
                lambda r, resp: (
                    resp.with_header("content-type", "application/json; charset = utf-8")
                    if ok(resp)
                    else resp
                ),
            ),
        ),
        fault(
            "environment-id-optional",
            "CFG-ENV-ID-REQUIRED ERR-VALIDATION-STATUS",
            "A missing or non-numeric environment_id means environment 1.",
            edit_request(
                MANAGEMENT,
                lambda r: (
                    r
                    if (r.header("environment_id") or "").isdigit()
                    else r.with_header("environment_id", DEV_ENV)
                ),
            ),
        ),
        fault(
            "environment-id-any-project",
            "CFG-ENV-ID-UNKNOWN",
            "An environment_id of another project is taken as environment 1.",
            edit_request(
                MANAGEMENT,
                lambda r: (
                    r
                    if r.header("environment_id") in ("1", "2")
                    or not (r.header("environment_id") or "").isdigit()
                    else r.with_header("environment_id", DEV_ENV)
                ),
            ),
        ),
        fault(
            "path-ids-lenient",
            "CFG-PATH-IDS-NUMERIC",
            "A non-numeric project id in the path is taken as project 1.",
            edit_request(MANAGEMENT, _lenient_project_id),
        ),
    )
