"""One-defect dialects: each breaks exactly one declared choice of the dialect (the profile still
declares it) and names the requirements the kit must fail for it.

A variant wraps the correct ``Dialect``: it rewrites the dialect's request before it, or the
reference server's answer under it, or the dialect's answer after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response

from dialect import paths
from dialect.bodies import parsed, with_body
from dialect.choices import (
    CREATE_FIELDS,
    ERROR_FIELDS,
    MALFORMED_BODY_STATUS,
    MEMBER_STATUS_VALUES,
    PATCH_FIELDS,
    VALIDATION_STATUS,
    dialect_name,
)
from dialect.refusals import NOT_A_MEMBER
from dialect.server import Dialect

PRIVATE = CREATE_FIELDS["privateKeys"]
ORDER = PATCH_FIELDS["keyOrder"]
Rewrite = Callable[[Request], Request]
Answer = Callable[[Request, Response], Response]


@dataclass(frozen=True)
class Variant:
    """A dialect with one declared choice broken."""

    name: str
    doc: str
    breaks: frozenset[str]  # requirement ids the kit must fail
    before: Rewrite = field(default=lambda r: r)  # the client's request, before the dialect
    under: Answer = field(default=lambda q, r: r)  # refserver's answer, under the dialect
    after: Answer = field(default=lambda q, r: r)  # the dialect's answer
    kit_gap: str | None = None  # why the kit cannot catch it yet (a strict xfail)
    profile: dict[str, Any] = field(default_factory=dict)  # keys over the dialect's profile

    def make(self) -> Handler:
        dialect = Dialect()

        async def handler(request: Request, forward: Forward) -> Response:
            async def beneath(inner: Request) -> Response:
                return self.under(inner, await forward(inner))

            changed = self.before(request)
            return self.after(changed, await dialect(changed, beneath))

        return handler


def _is_create_configuration(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/v2/configuration")


def _is_create_experiment(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/v2/experiments")


def _json_of(response: Response) -> Any:
    try:
        return json.loads(response.body) if response.body else None
    except ValueError:
        return None


# ---------------------------------------------------------------- errors.foreign_project_status


def _foreign_stays_403(request: Request, response: Response) -> Response:
    """refserver's 403 for a non-member, made unrecognisable so the dialect passes it on."""
    data = _json_of(response)
    if (response.status, *(data or {}).values()) == NOT_A_MEMBER:
        return response.with_json({"errorCode": "PERMISSION_DENIED", "message": "not yours"})
    return response


# ---------------------------------------------------------------- errors.malformed_body_status


def _malformed_as_validation(request: Request, response: Response) -> Response:
    """The dialect's refusal of a body that is not JSON, answered with its validation status."""
    data = _json_of(response)
    code = data.get(ERROR_FIELDS["errorCode"]) if isinstance(data, dict) else None
    if response.status == MALFORMED_BODY_STATUS and code == "BODY_NOT_JSON":
        return response.replace(status=VALIDATION_STATUS)
    return response


# ---------------------------------------------------------------- bodies.patch.base_hash_transport


def _if_match_dropped(request: Request) -> Request:
    return request.with_header("if-match", None) if request.method == "PATCH" else request


# ---------------------------------------------------------------- bodies.path_syntax


def _pointer(text: Any) -> Any:
    """A path the variant reads as a JSON Pointer, handed to the dialect as dotted (so the
    dialect passes on the same pointer); a dotted path is no pointer: a malformed one."""
    if not isinstance(text, str):
        return text
    try:
        return paths.to_dotted(text)
    except paths.PathError:
        return "\\"  # not a dotted path either: refused as malformed


def _paths_read_as_pointers(request: Request) -> Request:
    body = parsed(request)
    if not isinstance(body, dict):
        return request
    if _is_create_configuration(request) and isinstance(body.get(PRIVATE), list):
        return with_body(request, {**body, PRIVATE: [_pointer(p) for p in body[PRIVATE]]})
    if request.method == "PATCH" and isinstance(body.get(ORDER), list):
        entries = [
            {**e, "path": _pointer(e.get("path"))} if isinstance(e, dict) else e
            for e in body[ORDER]
        ]
        return with_body(request, {**body, ORDER: entries})
    return request


def _paths_shown_as_pointers(request: Request, response: Response) -> Response:
    data = _json_of(response)
    if not isinstance(data, dict) or not isinstance(data.get("privateKeys"), list):
        return response
    shown = []
    for path in data["privateKeys"]:
        try:
            shown.append(paths.to_pointer(path) if isinstance(path, str) else path)
        except paths.PathError:
            shown.append(path)
    return response.with_json({**data, "privateKeys": shown})


# ---------------------------------------------------------------- bodies.patch.key_order_shape


def _order_read_as_pointer_map(request: Request) -> Request:
    body = parsed(request)
    if request.method != "PATCH" or not isinstance(body, dict) or ORDER not in body:
        return request
    order = body[ORDER]
    if isinstance(order, dict):  # the variant's own shape: turned into the dialect's entries
        entries: Any = []
        for pointer, keys in order.items():
            try:
                entries.append({"path": paths.to_dotted(pointer), "keys": keys})
            except paths.PathError:
                entries = "malformed"
                break
        return with_body(request, {**body, ORDER: entries})
    if order is None:
        return request
    return with_body(request, {**body, ORDER: "malformed"})  # entries: not its shape


# ---------------------------------------------------- experiment_payload.changeset_format


def _removes_dropped(request: Request) -> Request:
    """The variant takes RFC 6902 changesets but skips their ``remove`` operations: a member a
    group's changeset deletes stays in the unit's document."""
    body = parsed(request)
    if not _is_create_experiment(request) or not isinstance(body, dict):
        return request
    groups = body.get("groups")
    if not isinstance(groups, list):
        return request
    name = dialect_name("changeset")
    out = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get(name), list):
            kept = [o for o in group[name] if not (isinstance(o, dict) and o.get("op") == "remove")]
            group = {**group, name: kept}
        out.append(group)
    return with_body(request, {**body, "groups": out})


# ---------------------------------------------------------------- experiment_payload.pagination


def _offset_ignored(request: Request) -> Request:
    skip = dialect_name("offset_param")
    return request.without_param(skip) if request.method == "GET" else request


# ---------------------------------------------------------------- status_param / member values

_REFERENCE_VALUES = {dialect: ref for ref, dialect in MEMBER_STATUS_VALUES.items()}


def _reference_values_in(request: Request) -> Request:
    """The filter takes the reference values: a declared value is unknown to it."""
    name = dialect_name("status_param")
    value = request.param(name)
    if request.method != "GET" or value is None:
        return request
    mapped = MEMBER_STATUS_VALUES.get(value, "unknown:" + value)  # active -> enrolled
    return request.replace(query=(*request.without_param(name).query, (name, mapped)))


def _reference_values_out(request: Request, response: Response) -> Response:
    if "/v2/experiments/" not in request.path or request.method not in ("GET", "POST"):
        return response
    data = _json_of(response)
    status = dialect_name("status")

    def revert(item: Any) -> Any:
        if isinstance(item, dict) and item.get(status) in _REFERENCE_VALUES:
            return {**item, status: _REFERENCE_VALUES[item[status]]}
        return item

    items = dialect_name("items")
    if isinstance(data, dict) and isinstance(data.get(items), list):
        return response.with_json({**data, items: [revert(i) for i in data[items]]})
    if isinstance(data, dict):
        return response.with_json(revert(data))
    return response


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "foreign-project-403",
        "answers 403 for a project the token's owner cannot reach (404 declared)",
        frozenset({"AUTH-PAT-FOREIGN-PROJECT", "AUTH-EXP-FOREIGN-PROJECT"}),
        under=_foreign_stays_403,
    ),
    Variant(
        "malformed-body-as-validation",
        "answers a body that is not JSON with its validation status (400 declared for it)",
        frozenset({"ERR-MALFORMED-JSON"}),
        after=_malformed_as_validation,
    ),
    Variant(
        "if-match-ignored",
        "ignores If-Match: a patch from a stale base is applied (if-match declared)",
        frozenset(
            {
                "CFG-PATCH-409-STALE-BASE",
                "CFG-PATCH-409-NOTHING-CHANGES",
                "CFG-PATCH-CONCURRENT-ONE-WINS",
            }
        ),
        before=_if_match_dropped,
    ),
    Variant(
        "pointer-paths",
        "reads and writes private and key-order paths as JSON Pointers (dotted declared)",
        frozenset(
            {
                "CFG-CREATE-PRIVACY-AND-COMMENTS",
                "CFG-PATCH-KEY-ORDER-SIDECAR",
                "CFG-PATCH-SIDECAR-INAPPLICABLE-409",
            }
        ),
        before=_paths_read_as_pointers,
        after=_paths_shown_as_pointers,
    ),
    Variant(
        "key-order-pointer-map",
        "takes the key-order sidecar as {path: keys} (entries declared)",
        frozenset({"CFG-PATCH-KEY-ORDER-SIDECAR", "CFG-PATCH-SIDECAR-INAPPLICABLE-409"}),
        before=_order_read_as_pointer_map,
    ),
    Variant(
        "changeset-removes-skipped",
        "skips the remove operations of a group's RFC 6902 changeset (json-patch declared)",
        frozenset(
            {
                "EXP-MANUAL-ASSIGNMENT-CONTENT",
                "EXP-UNENROLL-BASE-CONTENT",
                "SDK-BOOTSTRAP-ID-MERGE",
                "SDK-BOOTSTRAP-ID-ONLY-ACTIVE",
            }
        ),
        before=_removes_dropped,
    ),
    Variant(
        "offset-ignored",
        "ignores the offset parameter: every page is the first (offset declared); in pages of "
        "one item every list of two or more never ends, so every scenario that walks a list "
        "(experiments, members, assignments) fails with it",
        frozenset(
            {
                "AUTH-EXP-INVALID",
                "AUTH-EXP-MISSING",
                "AUTH-EXP-SDK-KEY-REFUSED",
                "EXP-ASSIGNMENT-COUNTS",
                "EXP-ASSIGNMENT-PERSISTENT",
                "EXP-ASSIGNMENTS-LIST",
                "EXP-COUNTS-AGREE-MEMBERS",
                "EXP-COUNTS-AGREE-TOTALS",
                "EXP-CREATE-INVALID-BASE-CONFIG",
                "EXP-CREATE-INVALID-FIELDS",
                "EXP-CREATE-INVALID-GROUP-COUNT",
                "EXP-CREATE-INVALID-WEIGHTS",
                "EXP-GROUP-COUNTS",
                "EXP-LIST",
                "EXP-MANUAL-ASSIGNMENT",
                "EXP-MEMBERS",
                "EXP-REACTIVATE",
                "EXP-UNENROLL",
                "EXP-UNKNOWN-ID",
            }
        ),  # EXP-TERMINATE-FINAL is a convention the dialect leaves undeclared: drop-in level
        before=_offset_ignored,
        profile={"experiments": {"page_size_max": 1}},
    ),
    Variant(
        "reference-member-values",
        "filters and shows members by active/unenrolled (enrolled/dropped declared)",
        frozenset({"EXP-MEMBERS", "EXP-REACTIVATE", "EXP-UNENROLL"}),
        before=_reference_values_in,
        after=_reference_values_out,
    ),
)
BY_NAME = {v.name: v for v in VARIANTS}
