"""The *experiments* section: defects of the experiment management endpoints.

Create (fields, unit types, assignment modes, validation of name, weights, group count and base
configuration), list and get, the analytics catalog, counts, context properties, assignment and
member lists, manual assignment, unenrol and reactivate, rollout, and terminate. Faults with
memory (a rollout that is shown but not kept, an unenrolled unit served its last per-unit answer)
build their state per server.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response, json_response
from faulty.context import Context
from faulty.recipes import (
    CREATE,
    EXP_ASSIGN,
    EXP_ASSIGNMENTS,
    EXP_CATALOG,
    EXP_CONTEXT,
    EXP_COUNTS,
    EXP_CREATE,
    EXP_GET,
    EXP_GROUP_COUNTS,
    EXP_LIST,
    EXP_MEMBERS,
    EXP_REACTIVATE,
    EXP_ROLLOUT,
    EXP_ROLLOUT_GET,
    EXP_TERMINATE,
    EXP_UNENROLL,
    EXPERIMENTS,
    SNAPSHOT,
    Fault,
    answer,
    chain,
    drop,
    edit_json,
    edit_request,
    edit_request_json,
    either,
    fault,
    ok,
    on_status,
    set_field,
    summaries,
    with_identity,
)


def rollout_zero_ignored(ctx: Context) -> Handler:
    zero: set[str] = set()

    def rewrite(request: Request) -> Request:
        body = request.json()
        if isinstance(body, dict) and body.get("percentage") == 0:
            zero.add(request.path.split("/")[-2])
            body["percentage"] = 100
            return request.with_json(body)
        if isinstance(body, dict) and "percentage" in body:
            zero.discard(request.path.split("/")[-2])
        return request

    def shown(data: Any, request: Request) -> Any:
        ident = str(data.get("experimentId", data.get("id")))
        if ident in zero:
            if "percentage" in data:
                data["percentage"] = 0
            if isinstance(data.get("rollout"), dict):
                data["rollout"]["percentage"] = 0
        return data

    def snapshot(data: Any, request: Request) -> Any:
        for summary in summaries(data):
            if str(summary.get("id")) in zero and isinstance(summary.get("rollout"), dict):
                summary["rollout"]["percentage"] = 0
        return data

    return chain(
        edit_request(EXP_ROLLOUT, rewrite),
        edit_json(either(EXP_ROLLOUT, EXP_ROLLOUT_GET, EXP_GET), shown),
        edit_json(SNAPSHOT, snapshot),
    )


def unenrolled_keeps_content(ctx: Context) -> Handler:
    """An unenrolled unit keeps getting the last per-unit answer it got while enrolled."""
    last: dict[str, Response] = {}
    unenrolled: set[str] = set()

    async def handler(request: Request, forward: Forward) -> Response:
        if EXP_UNENROLL(request) or EXP_REACTIVATE(request):
            response = await forward(request)
            unit = (request.json() or {}).get("unitId")
            if ok(response) and isinstance(unit, str):
                (unenrolled.add if EXP_UNENROLL(request) else unenrolled.discard)(unit)
            return response
        if with_identity(request):
            unit = request.header("unit-id") or ""
            if unit in unenrolled and unit in last:
                return last[unit]
            response = await forward(request.with_header("if-none-match", None))
            if response.status == 200:
                last[unit] = response
            return response
        return await forward(request)

    return handler


async def manual_on_probe(request: Request, forward: Forward) -> Response:
    """A manual assignment is validated and stored for a probe unit, not for the unit named."""
    body = request.json()
    if not EXP_ASSIGN(request) or not isinstance(body, dict) or "unitId" not in body:
        return await forward(request)
    unit = body["unitId"]
    response = await forward(request.with_json({**body, "unitId": f"{unit}~probe"}))
    data = response.json()
    if isinstance(data, dict) and data.get("unitId") == f"{unit}~probe":
        data["unitId"] = unit
        response = response.with_json(data)
    return response


def fake_ack(request: Request) -> Response | None:
    """Acknowledge a well-formed membership change without making it; anything else goes to the
    server (the one defect is that the change is not kept: a body that is no object used to
    crash here, a 500 no fault means)."""
    body = request.json()
    if not isinstance(body, dict) or not isinstance(body.get("unitId"), str):
        return None
    return json_response(
        200,
        {
            "unitId": body.get("unitId"),
            "status": "active" if "reactivate" in request.path else "unenrolled",
        },
    )


def _create_refuses(field_name: str, value: str) -> Callable[[Request], Response | None]:
    def make(request: Request) -> Response | None:
        body = request.json()
        if isinstance(body, dict) and body.get(field_name) == value:
            return error_response(400, "INVALID_EXPERIMENT")
        return None

    return make


def _create_name_default(body: Any) -> Any:
    if isinstance(body, dict) and not isinstance(body.get("name"), str):
        body["name"] = "unnamed"
    return body


def _weights_normalised(body: Any) -> Any:
    groups = body.get("groups") if isinstance(body, dict) else None
    if body.get("assignmentMode", "weightedHash") != "weightedHash" or not isinstance(groups, list):
        return body
    weights: list[Any] = [g.get("weight") for g in groups if isinstance(g, dict)]
    if groups and all(isinstance(w, int) for w in weights) and sum(weights) != 10000:
        groups[-1]["weight"] = 10000 - sum(weights[:-1])
    return body


def _groups_truncated(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("groups"), list) and len(body["groups"]) > 8:
        body["groups"] = body["groups"][:8]
        body["groups"][-1]["weight"] = None
        fixed = [g.get("weight") for g in body["groups"][:-1]]
        if all(isinstance(w, int) for w in fixed):
            body["groups"][-1]["weight"] = 10000 - sum(fixed)
    return body


def base_config_any(ctx: Context) -> Handler:
    """An unknown baseConfigurationId is replaced by the last configuration created."""
    created: list[Any] = []

    def learn(data: Any, request: Request) -> Any:
        created.append(data.get("id"))
        return data

    def fix(request: Request) -> Response | Request:
        return request

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = request.json()
        if (
            (
                EXP_CREATE(request)
                and response.status in (400, 404)
                and created
                and "baseConfiguration" in response.body.decode() + json.dumps(body)
            )
            and isinstance(body, dict)
            and isinstance(body.get("baseConfigurationId"), int)
            and body.get("baseConfigurationId") not in created
        ):
            body["baseConfigurationId"] = created[-1]
            return await forward(request.with_json(body))
        return response

    return chain(edit_json(CREATE, learn), handler)


def _drop_last_item(data: Any, request: Request) -> Any:
    items = data.get("items")
    if isinstance(items, list) and items:
        items.pop(0 if request.param("cursor") is None else -1)
    return data


def _no_items(data: Any, request: Request) -> Any:
    data["items"] = []
    return data


def _active_plus_one(data: Any, request: Request) -> Any:
    for group in data.get("groups", []):
        if isinstance(group.get("active"), int):
            group["active"] += 1
    return data


def _totals_plus_one(data: Any, request: Request) -> Any:
    for item in data.get("items", []):
        for name in ("active", "total"):
            if isinstance(item.get(name), int):
                item[name] += 1
    return data


def _rollout_as_fraction(data: Any, request: Request) -> Any:
    if isinstance(data.get("percentage"), (int, float)):
        data["percentage"] = data["percentage"] / 100
    return data


def rollout_not_kept(ctx: Context) -> Handler:
    """A rollout change answers as if applied, but nothing is stored."""

    async def handler(request: Request, forward: Forward) -> Response:
        if not EXP_ROLLOUT(request):
            return await forward(request)
        body = request.json()
        current = await forward(request.replace(method="GET", body=b""))
        data = current.json()
        if current.status != 200 or not isinstance(body, dict) or not isinstance(data, dict):
            return await forward(request)
        shown = copy.deepcopy(data)
        if isinstance(body.get("percentage"), (int, float)) and 0 <= body["percentage"] <= 100:
            shown["percentage"] = body["percentage"]
        elif "percentage" in body:
            return await forward(request)
        weights = body.get("weights")
        if isinstance(weights, dict):
            return await forward(request)
        return current.with_json(shown)

    return handler


def _percentage_clamped(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("percentage"), (int, float)):
        body["percentage"] = min(100, max(0, body["percentage"]))
    return body


def _invalid_transition_ok(request: Request, response: Response) -> Request | Response:
    if "INVALID_TRANSITION" in response.body.decode():
        return json_response(200, {"status": "terminated"})
    return response


# ------------------------------------------------------------------ the section


def experiments() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ experiment management
        fault(
            "experiment-create-lacks-groups",
            "EXP-CREATE",
            "Create experiment answers without `groups`.",
            edit_json(EXP_CREATE, drop("groups")),
        ),
        fault(
            "server-unit-type-refused",
            "EXP-CREATE-UNIT-TYPES",
            "unitType `server` is refused.",
            answer(EXP_CREATE, _create_refuses("unitType", "server")),
        ),
        fault(
            "round-robin-refused",
            "EXP-CREATE-ASSIGNMENT-MODES",
            "assignmentMode `roundRobin` is refused.",
            answer(EXP_CREATE, _create_refuses("assignmentMode", "roundRobin")),
        ),
        fault(
            "experiment-name-optional",
            "EXP-CREATE-INVALID-FIELDS",
            "An experiment without a string name gets a made-up one.",
            edit_request_json(EXP_CREATE, _create_name_default),
        ),
        fault(
            "weights-normalised",
            "EXP-CREATE-INVALID-WEIGHTS",
            "Weights off the total are silently fixed on the last group.",
            edit_request_json(EXP_CREATE, _weights_normalised),
        ),
        fault(
            "groups-truncated",
            "EXP-CREATE-INVALID-GROUP-COUNT",
            "More than 8 groups are cut to 8 instead of refused.",
            edit_request_json(EXP_CREATE, _groups_truncated),
        ),
        fault(
            "base-config-any",
            "EXP-CREATE-INVALID-BASE-CONFIG",
            "An unknown base configuration is replaced by the last one created.",
            base_config_any,
        ),
        fault(
            "list-drops-one",
            "EXP-LIST",
            "List experiments leaves out the first item of each page.",
            edit_json(EXP_LIST, _drop_last_item),
        ),
        fault(
            "get-renames",
            "EXP-GET",
            "Get experiment answers another name.",
            edit_json(EXP_GET, set_field("name", lambda d: f"{d.get('name')} (copy)")),
        ),
        fault(
            "analytics-catalog-empty",
            "EXP-ANALYTICS-CATALOG",
            "The analytics catalog is always empty.",
            edit_json(EXP_CATALOG, _no_items),
        ),
        fault(
            "project-counts-inflated",
            "EXP-ASSIGNMENT-COUNTS EXP-COUNTS-AGREE-TOTALS",
            "Project-wide counts add one phantom active unit per experiment.",
            edit_json(EXP_COUNTS, _totals_plus_one),
        ),
        fault(
            "context-properties-object",
            "EXP-CONTEXT-PROPERTIES EXP-CONTEXT-PROPERTIES-RECORDED",
            "Context properties answer an object keyed by name instead of a list.",
            edit_json(
                EXP_CONTEXT, lambda d, r: {"items": {i.get("name"): i for i in d.get("items", [])}}
            ),
        ),
        fault(
            "context-properties-forgotten",
            "EXP-CONTEXT-PROPERTIES-RECORDED",
            "Context properties sent by units are not recorded (the list stays empty).",
            edit_json(EXP_CONTEXT, _no_items),
        ),
        fault(
            "group-counts-inflated",
            "EXP-GROUP-COUNTS EXP-COUNTS-AGREE-MEMBERS",
            "Per-group counts add one phantom active unit.",
            edit_json(EXP_GROUP_COUNTS, _active_plus_one),
        ),
        fault(
            "assignments-list-empty",
            "EXP-ASSIGNMENTS-LIST",
            "Assignments of an experiment list nothing.",
            edit_json(EXP_ASSIGNMENTS, _no_items),
        ),
        fault(
            "members-list-empty",
            "EXP-MEMBERS",
            "Members of an experiment list nothing.",
            edit_json(EXP_MEMBERS, _no_items),
        ),
        fault(
            "manual-assignment-not-kept",
            "EXP-MANUAL-ASSIGNMENT EXP-MANUAL-ASSIGNMENT-CONTENT",
            "A manual assignment is acknowledged but not stored.",
            manual_on_probe,
        ),
        fault(
            "foreign-group-accepted",
            "EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP",
            "A manual assignment to a group of another experiment is acknowledged.",
            on_status(
                EXP_ASSIGN,
                404,
                lambda r, resp: json_response(200, {**(r.json() or {}), "source": "manual"}),
            ),
        ),
        fault(
            "unenroll-ignored",
            "EXP-UNENROLL EXP-UNENROLL-BASE-CONTENT",
            "Unenroll is acknowledged but nothing changes.",
            answer(EXP_UNENROLL, fake_ack),
        ),
        fault(
            "unenrolled-keeps-content",
            "EXP-UNENROLL-BASE-CONTENT",
            "An unenrolled unit keeps its group's content.",
            unenrolled_keeps_content,
        ),
        fault(
            "reactivate-ignored",
            "EXP-REACTIVATE",
            "Reactivate is acknowledged but nothing changes.",
            answer(EXP_REACTIVATE, fake_ack),
        ),
        fault(
            "rollout-as-fraction",
            "EXP-ROLLOUT-GET",
            "Rollout GET answers the percentage as a fraction of 1.",
            edit_json(EXP_ROLLOUT_GET, _rollout_as_fraction),
        ),
        fault(
            "rollout-not-kept",
            "EXP-ROLLOUT-CHANGE",
            "A percentage change is acknowledged but not stored (the enrolment limit's scenario, "
            "whose rollout step then has no effect, is blocked by it: not measurable).",
            rollout_not_kept,
        ),
        fault(
            "rollout-clamped",
            "EXP-ROLLOUT-CHANGE-INVALID",
            "A percentage out of 0..100 is clamped instead of refused.",
            edit_request_json(EXP_ROLLOUT, _percentage_clamped),
        ),
        fault(
            "zero-rollout-ignored",
            "EXP-ROLLOUT-LIMITS-ENROLMENT",
            "A zero rollout is shown but units are still enrolled.",
            rollout_zero_ignored,
        ),
        fault(
            "terminate-ignored",
            "EXP-TERMINATE EXP-TERMINATE-LEAVES-SNAPSHOT "
            "EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE SDK-BOOTSTRAP-ID-ONLY-ACTIVE",
            "Terminate is acknowledged but the experiment keeps running (EXP-TERMINATE-FINAL, "
            "whose terminate step has no effect, is blocked by it: not measurable).",
            answer(EXP_TERMINATE, lambda r: json_response(200, {"status": "terminated"})),
        ),
        fault(
            "terminated-revivable",
            "EXP-TERMINATE-FINAL",
            "Actions on a terminated experiment answer 200 instead of 409.",
            on_status(EXPERIMENTS, 409, _invalid_transition_ok),
        ),
    )
