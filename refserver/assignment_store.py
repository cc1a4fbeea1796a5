"""The assignment rows (one per unit and experiment): their queries, counts and JSON renderings.

The table is ``experiment_assignments`` of ``experiment_store.DDL``. Functions take an open
``sqlite3.Connection``; the caller owns the transaction (``Store.write()``/``read()``).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Assignment:
    id: int
    experiment_id: int
    unit_id: str
    group_id: int
    status: str
    source: str
    assignment_version: int
    assigned_at: str
    updated_at: str


def _assignment(row: sqlite3.Row) -> Assignment:
    return Assignment(
        id=row["id"],
        experiment_id=row["experiment_id"],
        unit_id=row["unit_id"],
        group_id=row["group_id"],
        status=row["status"],
        source=row["source"],
        assignment_version=row["assignment_version"],
        assigned_at=row["assigned_at"],
        updated_at=row["updated_at"],
    )


def assignment_of(conn: sqlite3.Connection, experiment_id: int, unit_id: str) -> Assignment | None:
    row = conn.execute(
        "SELECT * FROM experiment_assignments WHERE experiment_id = ? AND unit_id = ?",
        (experiment_id, unit_id),
    ).fetchone()
    return None if row is None else _assignment(row)


def assignments_page(
    conn: sqlite3.Connection, experiment_id: int, after: int, count: int, status: str | None
) -> list[Assignment]:
    """Up to ``count`` assignments with a row id above ``after``, optionally of one status."""
    rows = conn.execute(
        "SELECT * FROM experiment_assignments WHERE experiment_id = ? AND id > ?"
        " AND (? IS NULL OR status = ?) ORDER BY id LIMIT ?",
        (experiment_id, after, status, status, count),
    ).fetchall()
    return [_assignment(row) for row in rows]


def assignments_of_unit(
    conn: sqlite3.Connection, experiment_ids: list[int], unit_id: str
) -> dict[int, Assignment]:
    """A unit's stored assignments in the given experiments (one query), by experiment id."""
    if not experiment_ids:
        return {}
    marks = ",".join("?" * len(experiment_ids))
    rows = conn.execute(
        f"SELECT * FROM experiment_assignments WHERE unit_id = ? AND experiment_id IN ({marks})",
        (unit_id, *experiment_ids),
    ).fetchall()
    return {row["experiment_id"]: _assignment(row) for row in rows}


def put_assignment(
    conn: sqlite3.Connection,
    experiment_id: int,
    unit_id: str,
    group_id: int,
    status: str,
    source: str,
    now: str,
) -> Assignment:
    """Create or change a unit's assignment; the version moves when group or status changes."""
    held = assignment_of(conn, experiment_id, unit_id)
    return store_assignment(conn, held, experiment_id, unit_id, group_id, status, source, now)


def store_assignment(
    conn: sqlite3.Connection,
    held: Assignment | None,
    experiment_id: int,
    unit_id: str,
    group_id: int,
    status: str,
    source: str,
    now: str,
) -> Assignment:
    """``put_assignment`` when the caller has just read the stored one (``held``) itself."""
    if held is None:
        cursor = conn.execute(
            "INSERT INTO experiment_assignments (experiment_id, unit_id, group_id, status,"
            " source, assignment_version, assigned_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
            (experiment_id, unit_id, group_id, status, source, now, now),
        )
        assert cursor.lastrowid is not None
        return Assignment(
            id=cursor.lastrowid,
            experiment_id=experiment_id,
            unit_id=unit_id,
            group_id=group_id,
            status=status,
            source=source,
            assignment_version=1,
            assigned_at=now,
            updated_at=now,
        )
    if (held.group_id, held.status, held.source) == (group_id, status, source):
        return held
    bump = int((held.group_id, held.status) != (group_id, status))
    conn.execute(
        "UPDATE experiment_assignments SET group_id = ?, status = ?, source = ?,"
        " assignment_version = assignment_version + ?, updated_at = ? WHERE id = ?",
        (group_id, status, source, bump, now, held.id),
    )
    return replace(
        held,
        group_id=group_id,
        status=status,
        source=source,
        assignment_version=held.assignment_version + bump,
        updated_at=now,
    )


def counts_by_group(conn: sqlite3.Connection, experiment_id: int) -> dict[tuple[int, str], int]:
    """Assignments per (group id, status)."""
    return {
        (row["group_id"], row["status"]): row["n"]
        for row in conn.execute(
            "SELECT group_id, status, COUNT(*) AS n FROM experiment_assignments"
            " WHERE experiment_id = ? GROUP BY group_id, status",
            (experiment_id,),
        )
    }


def counts_by_experiment(
    conn: sqlite3.Connection, application_id: int, environment_id: int
) -> dict[int, dict[str, int]]:
    """Assignments per experiment and status, for every experiment of the environment."""
    counts: dict[int, dict[str, int]] = {}
    for row in conn.execute(
        "SELECT e.id AS experiment_id, a.status AS status, COUNT(a.id) AS n FROM experiments e"
        " LEFT JOIN experiment_assignments a ON a.experiment_id = e.id"
        " WHERE e.application_id = ? AND e.environment_id = ? GROUP BY e.id, a.status"
        " ORDER BY e.id",
        (application_id, environment_id),
    ):
        per = counts.setdefault(row["experiment_id"], {})
        if row["status"] is not None:
            per[row["status"]] = row["n"]
    return counts


# ---------------------------------------------------------------- renderings


def render_assignment(found: Assignment) -> dict[str, Any]:
    return {
        "unitId": found.unit_id,
        "experimentId": found.experiment_id,
        "groupId": found.group_id,
        "status": found.status,
        "source": found.source,
        "assignmentVersion": found.assignment_version,
        "assignedAt": found.assigned_at,
        "updatedAt": found.updated_at,
    }


def render_member(found: Assignment) -> dict[str, Any]:
    return {"unitId": found.unit_id, "groupId": found.group_id, "status": found.status}
