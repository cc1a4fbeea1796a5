"""The adversary-trace section's experiment entries (issue 38; names start ``adv2-``).

Experiment endpoints (a rollout id read as its leading digits, a terminated experiment read back
as running, a manual member's unenrolment undone, a reactivation that regroups) and experiment
summaries in the snapshot (the server unit type's start at the epoch, required properties joined,
the third group's id a string, a slugged name, the primary configuration as base). Each doc quotes
the specification's words it breaks; ``faulty.adversary_trace`` lists them between its
management and SDK entries.
"""

from __future__ import annotations

import re
import threading
from datetime import datetime
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response
from faulty.context import Context
from faulty.recipes import (
    EXP_ASSIGN,
    EXP_GET,
    EXP_REACTIVATE,
    EXP_UNENROLL,
    SNAPSHOT,
    Fault,
    edit_json,
    edit_request,
    fault,
    ok,
    route,
    summaries,
)

# ------------------------------------------------------------------ experiment endpoints


_ROLLOUT_ANY = route("*", r"^/application/[^/]+/v2/experiments/[^/]+/rollout$")


def _rollout_id_parse_int(request: Request) -> Request:
    if not _ROLLOUT_ANY(request):
        return request
    return request.replace(
        path=re.sub(
            r"/experiments/([0-9]+)[^/0-9][^/]*/rollout$", r"/experiments/\1/rollout", request.path
        )
    )


def _terminated_reads_running(data: Any, request: Request) -> Any:
    if isinstance(data, dict) and data.get("status") == "terminated":
        data["status"] = "running"
        if "terminatedAt" in data:
            data["terminatedAt"] = None
    return data


def _experiment_base(path: str) -> str:
    """``/application/{a}/v2/experiments/{id}`` of a path under it."""
    match = re.match(r"^(/application/[^/]+/v2/experiments/[^/]+)", path)
    return match.group(1) if match else path


def _unenroll_of_manual_undone(ctx: Context) -> Handler:
    manual: set[tuple[str, str]] = set()
    lock = threading.Lock()

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = request.json()
        unit = body.get("unitId") if isinstance(body, dict) else None
        if not isinstance(unit, str) or not ok(response):
            return response
        key = (_experiment_base(request.path), unit)
        if EXP_ASSIGN(request):
            with lock:
                manual.add(key)
        elif EXP_UNENROLL(request):
            with lock:
                was_manual = key in manual
            if was_manual:
                base = _experiment_base(request.path)
                await forward(request.replace(path=base + "/assignments/reactivate"))
        return response

    return handler


async def _reactivate_regroups(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    if not EXP_REACTIVATE(request) or not ok(response):
        return response
    body = request.json()
    assignment = response.json()
    unit = body.get("unitId") if isinstance(body, dict) else None
    group = assignment.get("groupId") if isinstance(assignment, dict) else None
    if not isinstance(unit, str):
        return response
    base = _experiment_base(request.path)
    got = await forward(request.replace(method="GET", path=base, body=b""))
    experiment = got.json()
    groups = experiment.get("groups", []) if isinstance(experiment, dict) else []
    other = next((g.get("id") for g in groups if g.get("id") != group), None)
    if other is not None:
        await forward(
            request.replace(path=base + "/assignments").with_json(
                {"unitId": unit, "groupId": other}
            )
        )
    return response


# ------------------------------------------------------------------ experiment summaries


def _each_summary(edit: Any) -> Any:
    def apply(data: Any, request: Request) -> Any:
        if isinstance(data, dict):
            for summary in summaries(data):
                edit(summary, data)
        return data

    return apply


def _server_starts_at_epoch(summary: dict[str, Any], data: Any) -> None:
    value = summary.get("startsAt")
    if summary.get("unitType") != "server" or not isinstance(value, str):
        return
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return
    summary["startsAt"] = int(moment.timestamp() * 1000)


def _required_joined(summary: dict[str, Any], data: Any) -> None:
    props = summary.get("requiredProperties")
    if isinstance(props, list) and len(props) >= 2:
        summary["requiredProperties"] = ",".join(str(p) for p in props)


def _third_group_id_string(summary: dict[str, Any], data: Any) -> None:
    for group in (summary.get("groups") or [])[2:]:
        if isinstance(group, dict) and isinstance(group.get("id"), int):
            group["id"] = str(group["id"])


def _slug(text: str) -> str:
    text = re.sub(r"\s+", "-", text.lower())
    text = re.sub(r"[^a-z0-9-]", "", text)
    return re.sub(r"-+", "-", text).strip("-")


def _name_slugged(summary: dict[str, Any], data: Any) -> None:
    name = summary.get("name")
    if isinstance(name, str):
        summary["name"] = _slug(name)


def _base_is_primary(summary: dict[str, Any], data: Any) -> None:
    primary = data.get("primaryConfigurationId")
    if isinstance(primary, int):
        summary["baseConfigurationId"] = primary


# ------------------------------------------------------------------ the entries


def experiment_faults() -> tuple[Fault, ...]:
    """The experiment entries, in the order the adversary-trace section lists them."""
    return (
        fault(
            "adv2-rollout-experiment-id-parse-int",
            "EXP-PATH-IDS-NUMERIC",
            "S73, spec 4.2: `All paths are under {base_url}/application/{applicationId}/v2/"
            "experiments` with numeric ids (GET/PATCH /{experimentId}/rollout). Only on the two "
            "rollout routes, an experimentId that starts with digits (`12abc`) is read as them.",
            edit_request(_ROLLOUT_ANY, _rollout_id_parse_int),
        ),
        fault(
            "adv2-terminated-reads-running",
            "EXP-TERMINATE",
            "S7/S90, spec 1 and 4.2: `an experiment can be terminated (POST .../terminate)`. The "
            "terminate is applied (the snapshot and per-unit content drop it), but GET "
            "/{experimentId} still shows it running. One cause, one finding: EXP-TERMINATE-FINAL "
            "(a production convention, read by that GET) is blocked by it, not measurable.",
            edit_json(EXP_GET, _terminated_reads_running),
        ),
        fault(
            "adv2-unenroll-of-manual-member-undone",
            "EXP-UNENROLL EXP-UNENROLL-BASE-CONTENT",
            "S86/S61, spec 3: `a member can be unenrolled and re-activated`. Unenrolling a unit "
            "placed by a manual assignment answers 2xx, and the member is re-activated at once "
            "(hash-assigned members unenroll as they should); the unit's bootstrap keeps the "
            "group's changeset (EXP-UNENROLL-BASE-CONTENT).",
            _unenroll_of_manual_undone,
        ),
        fault(
            "adv2-reactivate-regroups",
            "EXP-REACTIVATE",
            "S85/S61, spec 3: `a member can be unenrolled and re-activated` (re-activated: active "
            "again, as it was). Re-activation answers as the reference does, then moves the "
            "member to another group of the experiment.",
            _reactivate_regroups,
        ),
        fault(
            "adv2-server-summary-starts-at-epoch",
            "EXP-SNAPSHOT-SUMMARY-FIELDS",
            "S57, spec 2.5: `startsAt | ISO 8601 date-time`. Summaries of unitType server carry "
            "startsAt as epoch milliseconds (user summaries keep the ISO string).",
            edit_json(SNAPSHOT, _each_summary(_server_starts_at_epoch)),
        ),
        fault(
            "adv2-summary-required-properties-joined",
            "EXP-SNAPSHOT-SUMMARY-FIELDS EXP-SNAPSHOT-MATCHES-EXPERIMENT",
            "S56, spec 2.5: `requiredProperties | array of string`. A summary with two or more "
            "required properties carries them comma-joined in one string (none or one: an "
            "array).",
            edit_json(SNAPSHOT, _each_summary(_required_joined)),
        ),
        fault(
            "adv2-third-group-id-string",
            "EXP-SNAPSHOT-GROUP-FIELDS",
            "S59, spec 2.5: `groups | array of {id: number, label: string, weight: number, "
            "ordinal: number}`. From the third group of a summary on, the group id is a string.",
            edit_json(SNAPSHOT, _each_summary(_third_group_id_string)),
        ),
        fault(
            "adv2-summary-name-slugged",
            "EXP-SNAPSHOT-MATCHES-EXPERIMENT",
            "S50, spec 2.5: `name | string` (the experiment's name). The summary carries the "
            "name as a slug (lowercase, spaces to `-`, other characters dropped), the way "
            "aliases are made.",
            edit_json(SNAPSHOT, _each_summary(_name_slugged)),
        ),
        fault(
            "adv2-summary-base-is-primary",
            "EXP-SNAPSHOT-MATCHES-EXPERIMENT",
            "S53, spec 2.5: `baseConfigurationId | number` (the configuration the group "
            "changesets are against, spec 1). The summary names the snapshot's primary "
            "configuration instead of the experiment's base.",
            edit_json(SNAPSHOT, _each_summary(_base_is_primary)),
        ),
    )
