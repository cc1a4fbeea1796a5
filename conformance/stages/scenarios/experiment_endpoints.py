"""The experiment endpoints of spec 4.2 as the credential scenarios walk them: the table of the 15
operations with the body each is called with, the subject they are called about, one call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Unpack

from conformance.drivers.call_options import ManagementOptions
from conformance.drivers.experiments import Experiments, group_ids
from conformance.drivers.steps import body_of, ok
from conformance.json_types import JsonObject, JsonValue
from conformance.traffic.sdk_options import UNSET
from conformance.traffic.transcript import Reply

BASE: JsonObject = {"economy": {"startingGold": 100}}
MORE_GOLD: list[JsonObject] = [{"op": "set", "path": ["economy", "startingGold"], "value": 200}]


@dataclass
class Subject:
    """What the endpoint table is called about: an experiment, its groups, a unit, a base."""

    experiment_id: JsonValue
    group_id: JsonValue
    unit: str
    base_id: JsonValue
    create_body: dict[str, object]


Body = Callable[[Experiments, Subject], object]


def _no_body(experiments: Experiments, subject: Subject) -> object:
    return UNSET


# (operationId, method, path suffix with {id}, body)
ENDPOINTS: list[tuple[str, str, str, Body]] = [
    ("listExperiments", "GET", "", _no_body),
    ("createExperiment", "POST", "", lambda e, s: s.create_body),
    ("getAnalyticsCatalog", "GET", "/analytics-catalog", _no_body),
    ("getAssignmentCounts", "GET", "/assignment-counts", _no_body),
    ("listContextProperties", "GET", "/context-properties", _no_body),
    ("getExperiment", "GET", "/{id}", _no_body),
    ("getExperimentAssignmentCounts", "GET", "/{id}/assignment-counts", _no_body),
    ("listAssignments", "GET", "/{id}/assignments", _no_body),
    (
        "setManualAssignment",
        "POST",
        "/{id}/assignments",
        lambda e, s: {e.p.unit_id: s.unit, e.p.group_id: s.group_id},
    ),
    ("unenrollMember", "POST", "/{id}/assignments/unenroll", lambda e, s: {e.p.unit_id: s.unit}),
    ("listMembers", "GET", "/{id}/members", _no_body),
    (
        "reactivateMember",
        "POST",
        "/{id}/assignments/reactivate",
        lambda e, s: {e.p.unit_id: s.unit},
    ),
    ("getRollout", "GET", "/{id}/rollout", _no_body),
    ("changeRollout", "PATCH", "/{id}/rollout", lambda e, s: {e.p.percentage: 50}),
    ("terminateExperiment", "POST", "/{id}/terminate", lambda e, s: {}),
]
PER_EXPERIMENT = [entry for entry in ENDPOINTS if "{id}" in entry[2]]


def subject_of(experiments: Experiments, label: str, assigned: bool = True) -> Subject:
    """A running experiment of two groups on a new base, a unit (assigned to the first group
    unless not ``assigned``), and a create body of the same shape."""
    base = experiments.base(BASE)
    groups = experiments.groups([[], MORE_GOLD])
    record = experiments.create_ok(label, base["id"], groups)
    unit = experiments.unit(label)
    first = group_ids(record)[0]
    if assigned:
        experiments.assign_ok(record["id"], unit, first)
    body = experiments.body(f"{label}-made", base["id"], groups)
    return Subject(record["id"], first, unit, base["id"], body)


def send(
    experiments: Experiments,
    entry: tuple[str, str, str, Body],
    subject: Subject,
    experiment_id: object = None,
    **kw: Unpack[ManagementOptions],
) -> Reply:
    """Call one entry of the table about ``subject`` (or ``experiment_id``); whatever a create
    makes is registered for termination."""
    _, method, suffix, body = entry
    path = suffix.replace(
        "{id}", str(subject.experiment_id if experiment_id is None else experiment_id)
    )
    reply = experiments.call(method, path, json_body=body(experiments, subject), **kw)
    created = body_of(reply) if entry[0] == "createExperiment" and ok(reply) else None
    new_id = created.get("id") if isinstance(created, dict) else None
    if isinstance(new_id, int):
        experiments.track(new_id, experiments.environment)  # terminated at the end
    return reply
