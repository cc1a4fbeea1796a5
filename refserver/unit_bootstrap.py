"""Bootstrap with identity: evaluate a unit against the active experiments, per-unit content.

``build`` runs inside the bootstrap handler's write transaction. For each running experiment of
the unit's type that has started and not ended (by id), it decides the unit's group
(``assignment.decide``), persists the decision, and merges the served groups' changesets into
their base configurations (in experiment id order). Context property names are recorded for
the context-properties endpoint. The answer is the bootstrap payload with merged documents,
``assignments`` and its own ``hash`` (SHA-256 of the per-unit payload, like the snapshot hash).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from refserver import experiment_store as db
from refserver.assignment import ACTIVE, Action, Held, Rules, decide
from refserver.changeset import merge
from refserver.hashing import snapshot_hash
from refserver.timestamps import now_iso


def _rules(experiment: db.Experiment) -> Rules:
    return Rules(
        experiment_id=experiment.id,
        assignment_mode=experiment.assignment_mode,
        auto_assignment=experiment.auto_assignment,
        permanent_enrollment=experiment.permanent_enrollment,
        required_properties=experiment.required_properties,
        rollout_percentage=experiment.rollout_percentage,
        group_ids=tuple(g.id for g in experiment.groups),
        weights=tuple(g.weight for g in experiment.groups),
    )


def evaluate(
    conn: sqlite3.Connection,
    experiment: db.Experiment,
    unit_id: str,
    context: Mapping[str, object],
    now: str,
) -> db.Assignment | None:
    """Decide and persist one unit's assignment in one experiment; the stored one, if any."""
    stored = db.assignment_of(conn, experiment.id, unit_id)
    held = None if stored is None else Held(stored.group_id, stored.status, stored.source)
    decision = decide(_rules(experiment), unit_id, held, context, experiment.round_robin_counter)
    if decision.action is Action.NONE:
        return None
    if decision.action is Action.KEEP:
        return stored
    assert decision.group_id is not None and decision.source is not None
    if decision.uses_round_robin:
        db.advance_round_robin(conn, experiment.id)
    status = ACTIVE if stored is None else stored.status
    return db.put_assignment(
        conn, experiment.id, unit_id, decision.group_id, status, decision.source, now
    )


def build(
    conn: sqlite3.Connection,
    application_id: int,
    environment_id: int,
    unit_id: str,
    unit_type: str,
    context: dict[str, Any],
    base_payload: dict[str, Any],
) -> dict[str, Any]:
    """The per-unit bootstrap payload; runs inside a write transaction (assignments persist)."""
    now = now_iso()
    if context:
        db.record_context(conn, application_id, environment_id, sorted(context), now)
    changesets: dict[int, list[dict[str, Any]]] = {}
    assignments: list[dict[str, Any]] = []
    for experiment in db.evaluable(conn, application_id, environment_id, unit_type, now):
        stored = evaluate(conn, experiment, unit_id, context, now)
        if stored is None:
            continue
        assignments.append(
            {
                "experimentId": experiment.id,
                "groupId": stored.group_id,
                "configurationId": experiment.base_configuration_id,
                "source": stored.source,
                "status": stored.status,
                "assignmentVersion": stored.assignment_version,
            }
        )
        group = experiment.group(stored.group_id)
        if stored.status == ACTIVE and group is not None:
            changesets.setdefault(experiment.base_configuration_id, []).extend(group.changeset)
    payload = {k: v for k, v in base_payload.items() if k != "hash"}
    payload["configurations"] = [
        {**entry, "configuration": merge(entry.get("configuration"), changesets[entry["id"]])}
        if entry.get("id") in changesets
        else entry
        for entry in base_payload.get("configurations", [])
    ]
    payload["assignments"] = assignments
    return {"hash": snapshot_hash(payload), **payload}
