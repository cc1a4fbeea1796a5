"""The experiment tables (DDL), the queries on experiments, groups and context properties, and
the experiments' JSON renderings.

Tables: ``experiments``, ``experiment_groups``, ``experiment_assignments`` (one row per unit and
experiment: its queries are ``assignment_store``'s) and ``context_properties`` (names seen in
bootstrap contexts). Functions take an open ``sqlite3.Connection``; the caller owns the
transaction (``Store.write()``/``read()``). ``active_summaries`` is what the snapshot builder
calls.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from refserver.experiment_input import ExperimentInput
from refserver.experiment_summaries import ExperimentSummaries
from refserver.lifecycle import INITIAL

DDL = """
CREATE TABLE IF NOT EXISTS experiments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    application_id INTEGER NOT NULL REFERENCES projects(id),
    environment_id INTEGER NOT NULL REFERENCES environments(id),
    name TEXT NOT NULL,
    unit_type TEXT NOT NULL,
    assignment_mode TEXT NOT NULL,
    base_configuration_id INTEGER NOT NULL REFERENCES configurations(id),
    auto_assignment INTEGER NOT NULL,
    permanent_enrollment INTEGER NOT NULL,
    required_properties TEXT NOT NULL,
    starts_at TEXT NOT NULL,
    ends_at TEXT NOT NULL,
    status TEXT NOT NULL,
    rollout_percentage REAL NOT NULL DEFAULT 100,
    round_robin_counter INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    terminated_at TEXT
);
CREATE INDEX IF NOT EXISTS experiments_by_environment
    ON experiments (application_id, environment_id, id);
CREATE TABLE IF NOT EXISTS experiment_groups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id),
    label TEXT NOT NULL,
    weight INTEGER,
    ordinal INTEGER NOT NULL,
    changeset TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS experiment_groups_by_experiment
    ON experiment_groups (experiment_id, ordinal);
CREATE TABLE IF NOT EXISTS experiment_assignments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    experiment_id INTEGER NOT NULL REFERENCES experiments(id),
    unit_id TEXT NOT NULL,
    group_id INTEGER NOT NULL REFERENCES experiment_groups(id),
    status TEXT NOT NULL,
    source TEXT NOT NULL,
    assignment_version INTEGER NOT NULL,
    assigned_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (experiment_id, unit_id)
);
CREATE INDEX IF NOT EXISTS experiment_assignments_by_experiment
    ON experiment_assignments (experiment_id, id);
CREATE TABLE IF NOT EXISTS context_properties (
    application_id INTEGER NOT NULL,
    environment_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    seen_count INTEGER NOT NULL,
    last_seen_at TEXT NOT NULL,
    PRIMARY KEY (application_id, environment_id, name)
);
"""


@dataclass(frozen=True)
class Group:
    id: int
    label: str
    weight: int | None
    ordinal: int
    changeset: list[dict[str, Any]]


@dataclass(frozen=True)
class Experiment:
    """One experiment row with its groups (in ordinal order)."""

    id: int
    application_id: int
    environment_id: int
    name: str
    unit_type: str
    assignment_mode: str
    base_configuration_id: int
    auto_assignment: bool
    permanent_enrollment: bool
    required_properties: tuple[str, ...]
    starts_at: str
    ends_at: str
    status: str
    rollout_percentage: float
    round_robin_counter: int
    created_at: str
    updated_at: str
    terminated_at: str | None
    groups: tuple[Group, ...]

    def group(self, group_id: int) -> Group | None:
        return next((g for g in self.groups if g.id == group_id), None)


# ---------------------------------------------------------------- experiments


def _groups_of(conn: sqlite3.Connection, experiment_ids: list[int]) -> dict[int, list[Group]]:
    found: dict[int, list[Group]] = {i: [] for i in experiment_ids}
    if not experiment_ids:
        return found
    marks = ",".join("?" * len(experiment_ids))
    for row in conn.execute(
        "SELECT id, experiment_id, label, weight, ordinal, changeset FROM experiment_groups"
        f" WHERE experiment_id IN ({marks}) ORDER BY experiment_id, ordinal",
        experiment_ids,
    ):
        found[row["experiment_id"]].append(
            Group(
                id=row["id"],
                label=row["label"],
                weight=row["weight"],
                ordinal=row["ordinal"],
                changeset=json.loads(row["changeset"]),
            )
        )
    return found


def _experiments(conn: sqlite3.Connection, rows: Iterable[sqlite3.Row]) -> list[Experiment]:
    rows = list(rows)
    groups = _groups_of(conn, [row["id"] for row in rows])
    return [
        Experiment(
            id=row["id"],
            application_id=row["application_id"],
            environment_id=row["environment_id"],
            name=row["name"],
            unit_type=row["unit_type"],
            assignment_mode=row["assignment_mode"],
            base_configuration_id=row["base_configuration_id"],
            auto_assignment=bool(row["auto_assignment"]),
            permanent_enrollment=bool(row["permanent_enrollment"]),
            required_properties=tuple(json.loads(row["required_properties"])),
            starts_at=row["starts_at"],
            ends_at=row["ends_at"],
            status=row["status"],
            rollout_percentage=float(row["rollout_percentage"]),
            round_robin_counter=row["round_robin_counter"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            terminated_at=row["terminated_at"],
            groups=tuple(groups[row["id"]]),
        )
        for row in rows
    ]


_SELECT = "SELECT * FROM experiments WHERE application_id = ? AND environment_id = ?"


def insert(
    conn: sqlite3.Connection,
    application_id: int,
    environment_id: int,
    spec: ExperimentInput,
    now: str,
) -> int:
    """Store a new experiment and its groups; its id."""
    cursor = conn.execute(
        "INSERT INTO experiments (application_id, environment_id, name, unit_type,"
        " assignment_mode, base_configuration_id, auto_assignment, permanent_enrollment,"
        " required_properties, starts_at, ends_at, status, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            application_id,
            environment_id,
            spec.name,
            spec.unit_type,
            spec.assignment_mode,
            spec.base_configuration_id,
            int(spec.auto_assignment),
            int(spec.permanent_enrollment),
            json.dumps(list(spec.required_properties), ensure_ascii=False),
            spec.starts_at,
            spec.ends_at,
            INITIAL.value,
            now,
            now,
        ),
    )
    experiment_id = cursor.lastrowid
    assert experiment_id is not None
    conn.executemany(
        "INSERT INTO experiment_groups (experiment_id, label, weight, ordinal, changeset)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (
                experiment_id,
                group.label,
                group.weight,
                ordinal,
                json.dumps(group.changeset, ensure_ascii=False, separators=(",", ":")),
            )
            for ordinal, group in enumerate(spec.groups)
        ],
    )
    return experiment_id


def get(
    conn: sqlite3.Connection, application_id: int, environment_id: int, experiment_id: int
) -> Experiment | None:
    """One experiment of the environment, or None."""
    rows = conn.execute(
        _SELECT + " AND id = ?", (application_id, environment_id, experiment_id)
    ).fetchall()
    found = _experiments(conn, rows)
    return found[0] if found else None


def page_of(
    conn: sqlite3.Connection, application_id: int, environment_id: int, after: int, count: int
) -> list[Experiment]:
    """Up to ``count`` experiments with an id above ``after``, by id."""
    rows = conn.execute(
        _SELECT + " AND id > ? ORDER BY id LIMIT ?",
        (application_id, environment_id, after, count),
    ).fetchall()
    return _experiments(conn, rows)


def all_of(conn: sqlite3.Connection, application_id: int, environment_id: int) -> list[Experiment]:
    """Every experiment of the environment, by id."""
    rows = conn.execute(_SELECT + " ORDER BY id", (application_id, environment_id)).fetchall()
    return _experiments(conn, rows)


def running(
    conn: sqlite3.Connection, application_id: int, environment_id: int, now: str
) -> list[Experiment]:
    """Running experiments (every unit type) that have not ended at ``now``, by id."""
    rows = conn.execute(
        _SELECT + " AND status = 'running' AND ends_at > ? ORDER BY id",
        (application_id, environment_id, now),
    ).fetchall()
    return _experiments(conn, rows)


def set_status(
    conn: sqlite3.Connection, experiment_id: int, status: str, now: str, terminated: bool
) -> None:
    conn.execute(
        "UPDATE experiments SET status = ?, updated_at = ?,"
        " terminated_at = CASE WHEN ? THEN ? ELSE terminated_at END WHERE id = ?",
        (status, now, int(terminated), now, experiment_id),
    )


def set_rollout(
    conn: sqlite3.Connection,
    experiment_id: int,
    percentage: float | None,
    weights: dict[int, int],
    now: str,
) -> None:
    """Change the rollout percentage and group weights (already checked)."""
    if percentage is not None:
        conn.execute(
            "UPDATE experiments SET rollout_percentage = ? WHERE id = ?",
            (percentage, experiment_id),
        )
    conn.executemany(
        "UPDATE experiment_groups SET weight = ? WHERE id = ? AND experiment_id = ?",
        [(weight, group_id, experiment_id) for group_id, weight in weights.items()],
    )
    conn.execute("UPDATE experiments SET updated_at = ? WHERE id = ?", (now, experiment_id))


def round_robin_counter(conn: sqlite3.Connection, experiment_id: int) -> int:
    """How many units the experiment has placed by round robin so far."""
    row = conn.execute(
        "SELECT round_robin_counter FROM experiments WHERE id = ?", (experiment_id,)
    ).fetchone()
    return 0 if row is None else int(row["round_robin_counter"])


def advance_round_robin(conn: sqlite3.Connection, experiment_id: int) -> None:
    conn.execute(
        "UPDATE experiments SET round_robin_counter = round_robin_counter + 1 WHERE id = ?",
        (experiment_id,),
    )


def configuration_exists(
    conn: sqlite3.Connection, application_id: int, environment_id: int, configuration_id: int
) -> bool:
    """Whether a live configuration with this id is in the project and environment."""
    row = conn.execute(
        "SELECT 1 FROM configurations WHERE id = ? AND application_id = ? AND environment_id = ?"
        " AND deleted_at IS NULL",
        (configuration_id, application_id, environment_id),
    ).fetchone()
    return row is not None


# ---------------------------------------------------------------- context properties


def record_context(
    conn: sqlite3.Connection,
    application_id: int,
    environment_id: int,
    names: Iterable[str],
    now: str,
) -> None:
    conn.executemany(
        "INSERT INTO context_properties (application_id, environment_id, name, seen_count,"
        " last_seen_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT (application_id, environment_id, name)"
        " DO UPDATE SET seen_count = seen_count + 1, last_seen_at = excluded.last_seen_at",
        [(application_id, environment_id, name, now) for name in names],
    )


def context_properties(
    conn: sqlite3.Connection, application_id: int, environment_id: int
) -> list[dict[str, Any]]:
    return [
        {"name": row["name"], "seenCount": row["seen_count"], "lastSeenAt": row["last_seen_at"]}
        for row in conn.execute(
            "SELECT name, seen_count, last_seen_at FROM context_properties"
            " WHERE application_id = ? AND environment_id = ? ORDER BY name",
            (application_id, environment_id),
        )
    ]


# ---------------------------------------------------------------- renderings


def number(value: float) -> int | float:
    """A stored REAL as JSON: integral values as integers."""
    return int(value) if float(value).is_integer() else value


def render_summary(experiment: Experiment) -> dict[str, Any]:
    """The experiment summary of spec 2.5, plus ``rollout`` (so a rollout change moves the hash)."""
    return {
        "id": experiment.id,
        "name": experiment.name,
        "unitType": experiment.unit_type,
        "assignmentMode": experiment.assignment_mode,
        "baseConfigurationId": experiment.base_configuration_id,
        "autoAssignment": experiment.auto_assignment,
        "permanentEnrollment": experiment.permanent_enrollment,
        "requiredProperties": list(experiment.required_properties),
        "startsAt": experiment.starts_at,
        "endsAt": experiment.ends_at,
        "groups": [
            {"id": g.id, "label": g.label, "weight": g.weight, "ordinal": g.ordinal}
            for g in experiment.groups
        ],
        "rollout": {"percentage": number(experiment.rollout_percentage)},
    }


def render_experiment(experiment: Experiment) -> dict[str, Any]:
    """The experiment record answered by the management endpoints."""
    summary = render_summary(experiment)
    summary["groups"] = [
        {**rendered, "changeset": group.changeset}
        for rendered, group in zip(summary["groups"], experiment.groups, strict=True)
    ]
    return {
        **summary,
        "applicationId": experiment.application_id,
        "environmentId": experiment.environment_id,
        "status": experiment.status,
        "createdAt": experiment.created_at,
        "updatedAt": experiment.updated_at,
        "terminatedAt": experiment.terminated_at,
    }


def active_summaries(
    conn: sqlite3.Connection, application_id: int, environment_id: int, now: str
) -> ExperimentSummaries:
    """Summaries of the running experiments that have not ended, split by unit type.

    ``expires_at`` is the earliest ``endsAt`` among them: the snapshot changes then.
    """
    rows = conn.execute(
        _SELECT + " AND status = 'running' AND ends_at > ? ORDER BY id",
        (application_id, environment_id, now),
    ).fetchall()
    summaries = ExperimentSummaries(user=[], server=[], expires_at=None)
    for experiment in _experiments(conn, rows):
        target = summaries.user if experiment.unit_type == "user" else summaries.server
        target.append(render_summary(experiment))
        if summaries.expires_at is None or experiment.ends_at < summaries.expires_at:
            summaries.expires_at = experiment.ends_at
    return summaries
