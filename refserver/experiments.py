"""The experiment-management routes (spec 4.2): 15 endpoints under ``.../v2/experiments``.

Every handler authenticates a PAT (``write=True`` for POST/PATCH), checks the
``environment_id`` header, reads its input, then does its store work in one transaction on the
thread pool. Writes that change what the snapshot shows (create, rollout, terminate) rebuild the
environment's snapshot inside the same transaction. ``ROUTES`` is the table the app mounts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from refserver import assignment_store, experiment_input, paging, snapshot
from refserver import experiment_store as db
from refserver.assignment import ACTIVE, MANUAL, UNENROLLED, WEIGHTED_HASH
from refserver.auth import authorize_pat, require_environment
from refserver.errors import ApiError
from refserver.experiment_input import WEIGHT_TOTAL
from refserver.inputs import json_body, parse_id
from refserver.lifecycle import Action, State, transition
from refserver.responses import json_response
from refserver.state import AppState, state_of
from refserver.timestamps import now_iso

PREFIX = "/application/{applicationId}/v2/experiments"
Handler = Callable[[Request], Awaitable[Response]]


class Call:
    """One authenticated call: the app state, project and environment it acts on."""

    def __init__(self, request: Request, state: AppState, application_id: int, environment_id: int):
        self.request = request
        self.state = state
        self.application_id = application_id
        self.environment_id = environment_id

    async def known_experiment_id(self) -> int:
        """The path's experiment id, checked to exist before any body is read (else 404)."""
        value = parse_id(self.request.path_params.get("experimentId"))
        if value is None:
            raise ApiError(404, "EXPERIMENT_NOT_FOUND", "experiment not found")
        await self.read(lambda conn: self.experiment(conn, value))
        return value

    def experiment(self, conn: sqlite3.Connection, experiment_id: int) -> db.Experiment:
        found = db.get(conn, self.application_id, self.environment_id, experiment_id)
        if found is None:
            raise ApiError(404, "EXPERIMENT_NOT_FOUND", f"experiment {experiment_id} not found")
        return found

    async def body(self) -> Any:
        return await json_body(self.request, self.state.settings.max_body_bytes)

    async def read(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        def run() -> Any:
            with self.state.store.read() as conn:
                return work(conn)

        return await run_in_threadpool(run)

    async def write(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        def run() -> Any:
            with self.state.store.write() as conn:
                return work(conn)

        return await run_in_threadpool(run)

    def rebuild_snapshot(self, conn: sqlite3.Connection) -> None:
        snapshot.rebuild(conn, self.application_id, self.environment_id)


async def _call(request: Request, *, write: bool) -> Call:
    state = state_of(request)
    application_id = parse_id(request.path_params.get("applicationId")) or 0

    def authorize() -> int:
        authorize_pat(request, state.store, application_id, write=write)
        with state.store.read() as conn:
            return require_environment(request, conn, application_id)

    environment_id = await run_in_threadpool(authorize)
    return Call(request, state, application_id, environment_id)


# ---------------------------------------------------------------- collection routes


async def list_experiments(request: Request) -> Response:
    """GET .../experiments -> {items: [experiment], nextCursor}."""
    call = await _call(request, write=False)
    wanted = paging.page_request(request.query_params)

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        rows = db.page_of(
            conn, call.application_id, call.environment_id, wanted.after, wanted.limit + 1
        )
        return paging.page(rows, wanted, key=lambda e: e.id, render=db.render_experiment)

    return json_response(await call.read(work))


async def create_experiment(request: Request) -> Response:
    """POST .../experiments -> 201 experiment."""
    call = await _call(request, write=True)
    spec = experiment_input.parse_create(await call.body(), datetime.now(UTC))

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        if not db.configuration_exists(
            conn, call.application_id, call.environment_id, spec.base_configuration_id
        ):
            raise ApiError(
                400,
                "INVALID_EXPERIMENT",
                f"baseConfigurationId {spec.base_configuration_id} is not a configuration"
                " of this project and environment",
            )
        experiment_id = db.insert(conn, call.application_id, call.environment_id, spec, now_iso())
        call.rebuild_snapshot(conn)
        return db.render_experiment(call.experiment(conn, experiment_id))

    return json_response(await call.write(work), 201)


async def analytics_catalog(request: Request) -> Response:
    """GET .../experiments/analytics-catalog -> {items: [{id, name, status, unitType, groups}]}."""
    call = await _call(request, write=False)

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        return {
            "items": [
                {
                    "id": e.id,
                    "name": e.name,
                    "status": e.status,
                    "unitType": e.unit_type,
                    "groups": [{"id": g.id, "label": g.label} for g in e.groups],
                }
                for e in db.all_of(conn, call.application_id, call.environment_id)
            ]
        }

    return json_response(await call.read(work))


async def assignment_counts(request: Request) -> Response:
    """GET .../experiments/assignment-counts -> {items: [{experimentId, active, ...}]}."""
    call = await _call(request, write=False)

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        counts = assignment_store.counts_by_experiment(
            conn, call.application_id, call.environment_id
        )
        items = []
        for experiment_id, per in counts.items():
            active, unenrolled = per.get(ACTIVE, 0), per.get(UNENROLLED, 0)
            items.append(
                {
                    "experimentId": experiment_id,
                    "active": active,
                    "unenrolled": unenrolled,
                    "total": active + unenrolled,
                }
            )
        return {"items": items}

    return json_response(await call.read(work))


async def context_properties(request: Request) -> Response:
    """GET .../experiments/context-properties -> {items: [{name, seenCount, lastSeenAt}]}."""
    call = await _call(request, write=False)

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        return {"items": db.context_properties(conn, call.application_id, call.environment_id)}

    return json_response(await call.read(work))


# ---------------------------------------------------------------- one experiment


async def get_experiment(request: Request) -> Response:
    """GET .../experiments/{experimentId} -> experiment."""
    call = await _call(request, write=False)
    experiment_id = await call.known_experiment_id()
    return json_response(
        await call.read(lambda conn: db.render_experiment(call.experiment(conn, experiment_id)))
    )


async def experiment_assignment_counts(request: Request) -> Response:
    """GET .../{experimentId}/assignment-counts -> per-group and total counts."""
    call = await _call(request, write=False)
    experiment_id = await call.known_experiment_id()

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        experiment = call.experiment(conn, experiment_id)
        counts = assignment_store.counts_by_group(conn, experiment_id)
        groups: list[dict[str, Any]] = [
            {
                "groupId": g.id,
                "label": g.label,
                "active": counts.get((g.id, ACTIVE), 0),
                "unenrolled": counts.get((g.id, UNENROLLED), 0),
            }
            for g in experiment.groups
        ]
        active = sum(counts.get((g.id, ACTIVE), 0) for g in experiment.groups)
        unenrolled = sum(counts.get((g.id, UNENROLLED), 0) for g in experiment.groups)
        return {
            "experimentId": experiment_id,
            "groups": groups,
            "active": active,
            "unenrolled": unenrolled,
            "total": active + unenrolled,
        }

    return json_response(await call.read(work))


def _assignment_pages(
    render: Callable[[assignment_store.Assignment], dict[str, Any]],
) -> Handler:
    async def handler(request: Request) -> Response:
        call = await _call(request, write=False)
        experiment_id = await call.known_experiment_id()
        wanted = paging.page_request(request.query_params)
        status = experiment_input.parse_member_status(request.query_params.get("status"))

        def work(conn: sqlite3.Connection) -> dict[str, Any]:
            call.experiment(conn, experiment_id)
            rows = assignment_store.assignments_page(
                conn, experiment_id, wanted.after, wanted.limit + 1, status
            )
            return paging.page(rows, wanted, key=lambda a: a.id, render=render)

        return json_response(await call.read(work))

    return handler


list_assignments = _assignment_pages(assignment_store.render_assignment)
list_assignments.__doc__ = "GET .../{experimentId}/assignments -> {items: [assignment], ...}."
list_members = _assignment_pages(assignment_store.render_member)
list_members.__doc__ = "GET .../{experimentId}/members -> {items: [member], nextCursor}."


async def set_manual_assignment(request: Request) -> Response:
    """POST .../{experimentId}/assignments {unitId, groupId} -> assignment (source manual)."""
    call = await _call(request, write=True)
    experiment_id = await call.known_experiment_id()
    unit_id, group_id = experiment_input.parse_manual(await call.body())

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        experiment = call.experiment(conn, experiment_id)
        transition(experiment.status, Action.ASSIGN_MANUALLY)
        if experiment.group(group_id) is None:
            raise ApiError(404, "GROUP_NOT_FOUND", f"group {group_id} is not in this experiment")
        stored = assignment_store.put_assignment(
            conn, experiment_id, unit_id, group_id, ACTIVE, MANUAL, now_iso()
        )
        return assignment_store.render_assignment(stored)

    return json_response(await call.write(work))


def _member_status_change(action: Action, status: str) -> Handler:
    async def handler(request: Request) -> Response:
        call = await _call(request, write=True)
        experiment_id = await call.known_experiment_id()
        unit_id = experiment_input.parse_unit(await call.body())

        def work(conn: sqlite3.Connection) -> dict[str, Any]:
            experiment = call.experiment(conn, experiment_id)
            transition(experiment.status, action)
            held = assignment_store.assignment_of(conn, experiment_id, unit_id)
            if held is None:
                raise ApiError(404, "UNIT_NOT_FOUND", "the unit has no assignment here")
            stored = assignment_store.put_assignment(
                conn, experiment_id, unit_id, held.group_id, status, held.source, now_iso()
            )
            return assignment_store.render_assignment(stored)

        return json_response(await call.write(work))

    return handler


unenroll_member = _member_status_change(Action.UNENROLL, UNENROLLED)
unenroll_member.__doc__ = "POST .../{experimentId}/assignments/unenroll {unitId} -> assignment."
reactivate_member = _member_status_change(Action.REACTIVATE, ACTIVE)
reactivate_member.__doc__ = "POST .../{experimentId}/assignments/reactivate {unitId} -> assignment."


def _rollout(experiment: db.Experiment) -> dict[str, Any]:
    return {
        "experimentId": experiment.id,
        "percentage": db.number(experiment.rollout_percentage),
        "groups": [{"id": g.id, "label": g.label, "weight": g.weight} for g in experiment.groups],
    }


async def get_rollout(request: Request) -> Response:
    """GET .../{experimentId}/rollout -> {experimentId, percentage, groups}."""
    call = await _call(request, write=False)
    experiment_id = await call.known_experiment_id()
    return json_response(
        await call.read(lambda conn: _rollout(call.experiment(conn, experiment_id)))
    )


def _new_weights(experiment: db.Experiment, weights: dict[int, int]) -> dict[int, int]:
    """The complete weights after a change, checked against the experiment."""
    if not weights:
        return {}
    if experiment.assignment_mode != WEIGHTED_HASH:
        raise ApiError(
            400, "INVALID_REQUEST", f"weights cannot change in {experiment.assignment_mode} mode"
        )
    for group_id in weights:
        if experiment.group(group_id) is None:
            raise ApiError(404, "GROUP_NOT_FOUND", f"group {group_id} is not in this experiment")
    merged = {g.id: weights.get(g.id, g.weight or 0) for g in experiment.groups}
    total = sum(merged.values())
    if total != WEIGHT_TOTAL:
        raise ApiError(
            400,
            "INVALID_REQUEST",
            f"group weights must add up to {WEIGHT_TOTAL} (they add up to {total})",
        )
    return merged


async def change_rollout(request: Request) -> Response:
    """PATCH .../{experimentId}/rollout {percentage?, weights?} -> rollout."""
    call = await _call(request, write=True)
    experiment_id = await call.known_experiment_id()
    change = experiment_input.parse_rollout(await call.body())

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        experiment = call.experiment(conn, experiment_id)
        transition(experiment.status, Action.CHANGE_ROLLOUT)
        weights = _new_weights(experiment, change.weights)
        if change.percentage is not None or weights:
            db.set_rollout(conn, experiment_id, change.percentage, weights, now_iso())
            call.rebuild_snapshot(conn)
        return _rollout(call.experiment(conn, experiment_id))

    return json_response(await call.write(work))


async def terminate_experiment(request: Request) -> Response:
    """POST .../{experimentId}/terminate -> experiment (status terminated); 409 if already."""
    call = await _call(request, write=True)
    experiment_id = await call.known_experiment_id()

    def work(conn: sqlite3.Connection) -> dict[str, Any]:
        experiment = call.experiment(conn, experiment_id)
        after = transition(experiment.status, Action.TERMINATE)
        db.set_status(
            conn, experiment_id, after.value, now_iso(), terminated=after is State.TERMINATED
        )
        call.rebuild_snapshot(conn)
        return db.render_experiment(call.experiment(conn, experiment_id))

    return json_response(await call.write(work))


# (path suffix, methods, handler, operationId). Fixed suffixes come before {experimentId}.
ROUTES: list[tuple[str, list[str], Handler, str]] = [
    ("", ["GET"], list_experiments, "listExperiments"),
    ("", ["POST"], create_experiment, "createExperiment"),
    ("/analytics-catalog", ["GET"], analytics_catalog, "getAnalyticsCatalog"),
    ("/assignment-counts", ["GET"], assignment_counts, "getAssignmentCounts"),
    ("/context-properties", ["GET"], context_properties, "listContextProperties"),
    ("/{experimentId}", ["GET"], get_experiment, "getExperiment"),
    (
        "/{experimentId}/assignment-counts",
        ["GET"],
        experiment_assignment_counts,
        "getExperimentAssignmentCounts",
    ),
    ("/{experimentId}/assignments", ["GET"], list_assignments, "listAssignments"),
    ("/{experimentId}/assignments", ["POST"], set_manual_assignment, "setManualAssignment"),
    ("/{experimentId}/assignments/reactivate", ["POST"], reactivate_member, "reactivateMember"),
    ("/{experimentId}/assignments/unenroll", ["POST"], unenroll_member, "unenrollMember"),
    ("/{experimentId}/members", ["GET"], list_members, "listMembers"),
    ("/{experimentId}/rollout", ["GET"], get_rollout, "getRollout"),
    ("/{experimentId}/rollout", ["PATCH"], change_rollout, "changeRollout"),
    ("/{experimentId}/terminate", ["POST"], terminate_experiment, "terminateExperiment"),
]


def _by_method(handlers: dict[str, Handler]) -> Handler:
    """One endpoint for every method of a path (so a 405 lists them all in ``Allow``)."""

    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return endpoint


def routes() -> list[BaseRoute]:
    """The experiment routes, for the app factory."""
    paths: dict[str, dict[str, Handler]] = {}
    names: dict[str, list[str]] = {}
    for suffix, methods, handler, operation_id in ROUTES:
        for method in methods:
            paths.setdefault(suffix, {})[method] = handler
        names.setdefault(suffix, []).append(operation_id)
    return [
        Route(
            PREFIX + suffix,
            _by_method(handlers),
            methods=list(handlers),
            name="|".join(names[suffix]),
        )
        for suffix, handlers in paths.items()
    ]
