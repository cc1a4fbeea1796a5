"""The experiment endpoints in the dialect: payload names and values, JSON Patch changesets,
offset pages, 200 on create, 410 for a change to a terminated experiment, idempotent terminate."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from faulty.asgi import Forward, Request, Response

from dialect import payloads, timestamps
from dialect.bodies import ABSENT, parsed, with_body
from dialect.changesets import ChangesetError, to_segments
from dialect.choices import CREATE_STATUS, MEMBER_STATUS_VALUES, dialect_name, reference_name
from dialect.offsets import OffsetError, whole_list, window
from dialect.refusals import refusal, translated, with_message

PREFIX = re.compile(r"/application/[^/]+/v2/experiments")
MALFORMED = "malformed by the dialect's rules"
FETCH_LIMIT = "100"
Item = Callable[[Any], Any]

# Query parameters of a dialect list; the reference ones mean nothing to it.
PAGE_PARAMS = {dialect_name(k) for k in ("limit_param", "offset_param", "status_param")}
REFERENCE_PAGE_PARAMS = {reference_name(k) for k in ("limit_param", "cursor_param", "status_param")}
STATUS_FILTER = {dialect: ref for ref, dialect in MEMBER_STATUS_VALUES.items()}


def suffix_of(path: str) -> str | None:
    """The part after ``.../v2/experiments`` with numeric ids as ``{id}``, or None."""
    match = PREFIX.match(path)
    if match is None:
        return None
    rest = path[match.end() :]
    return re.sub(r"^/[^/]+(?=/|$)", "/{id}", rest) if rest and not _is_named(rest) else rest


def _is_named(rest: str) -> bool:
    return rest in ("/analytics-catalog", "/assignment-counts", "/context-properties")


# (method, suffix) -> how the answer's body is translated
SINGLE: dict[tuple[str, str], Item] = {
    ("GET", "/{id}"): payloads.experiment_record,
    ("GET", "/{id}/assignment-counts"): payloads.experiment_counts,
    ("GET", "/{id}/rollout"): payloads.rollout,
    ("PATCH", "/{id}/rollout"): payloads.rollout,
    ("POST", "/{id}/assignments"): payloads.assignment_record,
    ("POST", "/{id}/assignments/unenroll"): payloads.assignment_record,
    ("POST", "/{id}/assignments/reactivate"): payloads.assignment_record,
    ("POST", "/{id}/terminate"): payloads.experiment_record,
}
UNPAGED_LISTS: dict[tuple[str, str], Item] = {
    ("GET", "/analytics-catalog"): payloads.catalog_item,
    ("GET", "/assignment-counts"): payloads.counts_item,
    ("GET", "/context-properties"): payloads.context_property,
}
PAGED_LISTS: dict[tuple[str, str], Item] = {
    ("GET", ""): payloads.experiment_record,
    ("GET", "/{id}/assignments"): payloads.assignment_record,
    ("GET", "/{id}/members"): payloads.assignment_record,
}
# (method, suffix) -> the experiment_payload keys its body uses
BODY_NAMES: dict[tuple[str, str], tuple[str, ...]] = {
    ("PATCH", "/{id}/rollout"): ("percentage", "weights"),
    ("POST", "/{id}/assignments"): ("unit_id", "group_id"),
    ("POST", "/{id}/assignments/unenroll"): ("unit_id",),
    ("POST", "/{id}/assignments/reactivate"): ("unit_id",),
}


def create_body(body: Any) -> Any:
    """Groups' JSON Patch changesets -> segment changesets; timestamps -> the reference form."""
    if not isinstance(body, dict):
        return body
    out = {
        k: timestamps.to_reference(v) if k in ("startsAt", "endsAt") else v for k, v in body.items()
    }
    groups = out.get("groups")
    if isinstance(groups, list):
        out["groups"] = [_group(g, n) for n, g in enumerate(groups)]
    return out


def _group(group: Any, index: int) -> Any:
    data = payloads.inbound(group, payloads.table("changeset"))
    if isinstance(data, dict) and "changeset" in data:
        try:
            data["changeset"] = to_segments(data["changeset"])
        except ChangesetError as error:
            raise ChangesetError(f"groups[{index}].{error}") from None
    return data


def _answer(response: Response, item: Item, status: int | None = None) -> Response:
    if response.status not in (200, 201):
        return translated(response)
    body = json.dumps(item(response.json()), ensure_ascii=False).encode()
    return response.replace(status=status or response.status, body=body)


async def handle(request: Request, forward: Forward) -> Response:
    suffix = suffix_of(request.path)
    route = (request.method, suffix or "")
    if suffix is None:
        return translated(await forward(request))
    if route == ("POST", ""):
        return await _create(request, forward)
    if route in PAGED_LISTS:
        return await _paged(request, forward, PAGED_LISTS[route])
    if route in UNPAGED_LISTS:
        return _answer(await forward(request), lambda d: payloads.listed(d, UNPAGED_LISTS[route]))
    if route in BODY_NAMES:
        body = parsed(request)
        names = payloads.table(*BODY_NAMES[route])
        request = with_body(request, payloads.inbound(body, names) if body is not ABSENT else body)
    response = await forward(request)
    if route == ("POST", "/{id}/terminate") and _is_transition_refusal(response):
        again = request.replace(
            method="GET", path=request.path.removesuffix("/terminate"), body=b""
        )
        response = await forward(again)
    return _answer(response, SINGLE.get(route, lambda d: d))


def _is_transition_refusal(response: Response) -> bool:
    data = response.json()
    return (
        response.status == 409
        and isinstance(data, dict)
        and data.get("errorCode") == ("INVALID_TRANSITION")
    )


async def _create(request: Request, forward: Forward) -> Response:
    body = parsed(request)
    failure = None
    if body is not ABSENT:
        try:
            body = create_body(body)
        except ChangesetError as error:
            failure = str(error)
            body = {**body, "groups": [{"label": "x", "changeset": MALFORMED}]}
    response = await forward(with_body(request, body))
    if failure is not None and response.status == 400:
        return with_message(translated(response), failure)
    return _answer(response, payloads.experiment_record, CREATE_STATUS)


async def _paged(request: Request, forward: Forward, item: Item) -> Response:
    """Offset paging: every reference page read through its cursors, then sliced."""
    take, skip = (
        request.param(dialect_name("limit_param")),
        request.param(dialect_name("offset_param")),
    )
    wanted_status = request.param(dialect_name("status_param"))
    query = [(k, v) for k, v in request.query if k not in PAGE_PARAMS | REFERENCE_PAGE_PARAMS]
    query.append((reference_name("limit_param"), FETCH_LIMIT))
    if wanted_status is not None:
        query.append(("status", STATUS_FILTER.get(wanted_status, "unknown:" + wanted_status)))
    refused: list[Response] = []

    async def fetch(cursor: str | None) -> tuple[list[Any], str | None] | None:
        extra = [] if cursor is None else [(reference_name("cursor_param"), cursor)]
        response = await forward(request.replace(query=tuple(query + extra)))
        data = response.json()
        if response.status != 200 or not isinstance(data, dict):
            refused.append(response)
            return None
        items = data.get("items")
        return (items if isinstance(items, list) else [], data.get("nextCursor"))

    items = await whole_list(fetch)
    if items is None:
        return translated(refused[0])
    try:
        page = window(take, skip)
    except OffsetError as error:
        return refusal(422, "INVALID_REQUEST", str(error))
    body = {dialect_name("items"): [item(i) for i in page.of(items)]}
    return Response(200, {"content-type": "application/json"}, json.dumps(body).encode())
