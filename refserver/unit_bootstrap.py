"""Bootstrap with identity: evaluate a unit against the active experiments, per-unit content.

For each running experiment of the unit's type that has started and not ended (by id), the
unit's group is decided (``assignment.decide``), the decision persisted, and the served groups'
changesets merged into their base configurations (in experiment id order). Context property
names are recorded for the context-properties endpoint. The answer is the bootstrap payload
with merged documents, ``assignments`` and its own ``hash`` (SHA-256 of the per-unit payload,
like the snapshot hash).

Two entry points share one evaluation:

- ``read(conn, ...)`` inside a read transaction: the payload when evaluating changes nothing
  (no context to record, every decision keeps the stored assignment or enrols nobody), else
  None and the caller must ``build``;
- ``build(conn, ...)`` inside a write transaction: decides, persists and answers.

The starting point is the environment's stored bootstrap (``snapshot.rebuild`` keeps it
current on every write that changes it), parsed once and kept in ``Bases`` together with the
environment's running experiments and their assignment rules while the stored body stays the
same: the body carries every rule field of every listed experiment (spec 2.5 summary plus
``rollout``), and group changesets never change. Only the round-robin counter is read fresh,
when a unit is to be placed by it. An expired or missing stored snapshot is rebuilt in memory
for that call, as the snapshot cache would.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from refserver import assignment_store, snapshot
from refserver import experiment_store as db
from refserver.assignment import ACTIVE, ROUND_ROBIN, Action, Held, Rules, decide
from refserver.changeset import merge
from refserver.hashing import snapshot_hash
from refserver.timestamps import now_iso, parse_ts

WRITES = (Action.CREATE, Action.MOVE)


def rules_of(experiment: db.Experiment) -> Rules:
    """What an experiment's assignment decisions depend on."""
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


@dataclass(frozen=True)
class Running:
    """A running experiment and its rules (its round-robin counter is not kept current)."""

    experiment: db.Experiment
    rules: Rules


@dataclass(frozen=True)
class Base:
    """An environment's bootstrap payload (no ``hash``) and its running experiments."""

    body: str | None  # the stored bootstrap body it was parsed from; None: built in memory
    payload: dict[str, Any]
    running: dict[str, tuple[Running, ...]]  # by unit type, in id order


def _expired(expires_at: str | None) -> bool:
    if expires_at is None:
        return False
    try:
        return parse_ts(expires_at).timestamp() <= time.time()
    except ValueError:
        return True


def _running(
    conn: sqlite3.Connection, application_id: int, environment_id: int, now: str
) -> dict[str, tuple[Running, ...]]:
    found: dict[str, list[Running]] = {}
    for experiment in db.running(conn, application_id, environment_id, now):
        found.setdefault(experiment.unit_type, []).append(Running(experiment, rules_of(experiment)))
    return {unit_type: tuple(items) for unit_type, items in found.items()}


class Bases:
    """Parsed stored bootstraps per environment, reused while the stored body is unchanged."""

    def __init__(self) -> None:
        self._entries: dict[int, Base] = {}
        self._lock = threading.Lock()

    def get(
        self, conn: sqlite3.Connection, application_id: int, environment_id: int, now: str
    ) -> Base:
        """The environment's base as of the caller's transaction."""
        row = conn.execute(
            "SELECT bootstrap_body, expires_at FROM snapshots WHERE environment_id = ?",
            (environment_id,),
        ).fetchone()
        if row is None or _expired(row["expires_at"]):
            payload = snapshot.build(conn, application_id, environment_id)
            payload.pop("_expires_at", None)
            payload.pop("hash", None)
            return Base(None, payload, _running(conn, application_id, environment_id, now))
        body: str = row["bootstrap_body"]
        cached = self._entries.get(environment_id)
        if cached is not None and cached.body == body:
            return cached
        payload = json.loads(body)
        payload.pop("hash", None)
        base = Base(body, payload, _running(conn, application_id, environment_id, now))
        with self._lock:
            self._entries[environment_id] = base
        return base


def _evaluable(base: Base, unit_type: str, now: str) -> list[Running]:
    """Running experiments of the unit type that have started and not ended at ``now``."""
    return [
        item
        for item in base.running.get(unit_type, ())
        if item.experiment.starts_at <= now < item.experiment.ends_at
    ]


def _held(stored: assignment_store.Assignment | None) -> Held | None:
    return None if stored is None else Held(stored.group_id, stored.status, stored.source)


def _payload(
    base: Base, served: list[tuple[db.Experiment, assignment_store.Assignment]]
) -> dict[str, Any]:
    """The per-unit payload with its hash, from the base and the unit's assignments."""
    changesets: dict[int, list[dict[str, Any]]] = {}
    assignments: list[dict[str, Any]] = []
    for experiment, stored in served:
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
    payload = dict(base.payload)
    payload["configurations"] = [
        {**entry, "configuration": merge(entry.get("configuration"), changesets[entry["id"]])}
        if entry.get("id") in changesets
        else entry
        for entry in base.payload.get("configurations", [])
    ]
    payload["assignments"] = assignments
    return {"hash": snapshot_hash(payload), **payload}


def read(
    conn: sqlite3.Connection,
    bases: Bases,
    application_id: int,
    environment_id: int,
    unit_id: str,
    unit_type: str,
    context: Mapping[str, object],
) -> dict[str, Any] | None:
    """The per-unit payload if evaluating it writes nothing (call in a read transaction)."""
    if context:
        return None  # its property names must be recorded
    now = now_iso()
    base = bases.get(conn, application_id, environment_id, now)
    evaluable = _evaluable(base, unit_type, now)
    held = assignment_store.assignments_of_unit(
        conn, [item.experiment.id for item in evaluable], unit_id
    )
    served = []
    for item in evaluable:
        stored = held.get(item.experiment.id)
        decision = decide(item.rules, unit_id, _held(stored), context, 0)
        if decision.action in WRITES:
            return None
        if decision.action is Action.KEEP:
            assert stored is not None
            served.append((item.experiment, stored))
    return _payload(base, served)


def build(
    conn: sqlite3.Connection,
    bases: Bases,
    application_id: int,
    environment_id: int,
    unit_id: str,
    unit_type: str,
    context: Mapping[str, object],
) -> dict[str, Any]:
    """The per-unit payload, decisions persisted (call in a write transaction)."""
    now = now_iso()
    if context:
        db.record_context(conn, application_id, environment_id, sorted(context), now)
    base = bases.get(conn, application_id, environment_id, now)
    evaluable = _evaluable(base, unit_type, now)
    held = assignment_store.assignments_of_unit(
        conn, [item.experiment.id for item in evaluable], unit_id
    )
    served = []
    for item in evaluable:
        experiment = item.experiment
        stored = held.get(experiment.id)
        counter = 0
        if stored is None and experiment.assignment_mode == ROUND_ROBIN:
            counter = db.round_robin_counter(conn, experiment.id)
        decision = decide(item.rules, unit_id, _held(stored), context, counter)
        if decision.action is Action.NONE:
            continue
        if decision.action in WRITES:
            assert decision.group_id is not None and decision.source is not None
            if decision.uses_round_robin:
                db.advance_round_robin(conn, experiment.id)
            status = ACTIVE if stored is None else stored.status
            stored = assignment_store.store_assignment(
                conn,
                stored,
                experiment.id,
                unit_id,
                decision.group_id,
                status,
                decision.source,
                now,
            )
        assert stored is not None
        served.append((experiment, stored))
    return _payload(base, served)
