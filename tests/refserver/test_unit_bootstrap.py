"""Unit tests of refserver.unit_bootstrap over a real SQLite store (no HTTP)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from refserver import assignment_store, experiment_store, snapshot, unit_bootstrap
from refserver.assignment import hash_bucket
from refserver.experiment_input import parse_create
from refserver.store import Store

BASE = {"economy": {"coins": 100}, "motd": "hi"}


def _configuration(store: Store, document: Any) -> int:
    with store.write() as conn:
        cursor = conn.execute(
            "INSERT INTO configurations (application_id, environment_id, name, alias, description,"
            " document, private_keys, comments, extra, content_hash, created_at, updated_at)"
            " VALUES (1, 1, 'c', 'c', '', ?, '[]', '{}', '{}', 'h', 'now', 'now')",
            (json.dumps(document),),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid


def _experiment(store: Store, configuration_id: int, **fields: Any) -> experiment_store.Experiment:
    body = {
        "name": "e",
        "unitType": "user",
        "baseConfigurationId": configuration_id,
        "groups": [
            {
                "label": "a",
                "weight": 5000,
                "changeset": [{"op": "set", "path": ["motd"], "value": "A"}],
            },
            {
                "label": "b",
                "weight": 5000,
                "changeset": [{"op": "set", "path": ["motd"], "value": "B"}],
            },
        ],
        **fields,
    }
    now = datetime.now(UTC) - timedelta(seconds=1)
    with store.write() as conn:
        experiment_id = experiment_store.insert(conn, 1, 1, parse_create(body, now), "now")
        snapshot.rebuild(conn, 1, 1)
        found = experiment_store.get(conn, 1, 1, experiment_id)
    assert found is not None
    return found


def _build(store: Store, unit: str, unit_type: str = "user", **context: Any) -> dict[str, Any]:
    with store.write() as conn:
        return unit_bootstrap.build(conn, unit_bootstrap.Bases(), 1, 1, unit, unit_type, context)


def test_assignment_persists_and_content_merges(store: Store) -> None:
    configuration_id = _configuration(store, BASE)
    experiment = _experiment(store, configuration_id)
    first = _build(store, "u-1")
    (assigned,) = first["assignments"]
    expected = experiment.groups[0 if hash_bucket(experiment.id, "u-1") < 5000 else 1]
    assert assigned["groupId"] == expected.id
    document = next(c for c in first["configurations"] if c["id"] == configuration_id)
    assert document["configuration"]["motd"] == expected.label.upper()
    assert _build(store, "u-1") == first
    with store.read() as conn:
        stored = assignment_store.assignment_of(conn, experiment.id, "u-1")
    assert stored is not None and stored.group_id == expected.id


def test_unit_type_filters_experiments(store: Store) -> None:
    configuration_id = _configuration(store, BASE)
    _experiment(store, configuration_id, unitType="server")
    assert _build(store, "u-1", "user")["assignments"] == []
    assert len(_build(store, "u-1", "server")["assignments"]) == 1


def test_not_started_and_ended_experiments_are_skipped(store: Store) -> None:
    configuration_id = _configuration(store, BASE)
    _experiment(store, configuration_id, startsAt="2999-01-01T00:00:00Z")
    _experiment(
        store, configuration_id, startsAt="2001-01-01T00:00:00Z", endsAt="2001-02-01T00:00:00Z"
    )
    assert _build(store, "u-1")["assignments"] == []


def test_context_names_are_recorded(store: Store) -> None:
    _build(store, "u-1", country="fr", level=3)
    _build(store, "u-2", country="de")
    with store.read() as conn:
        seen = {p["name"]: p["seenCount"] for p in experiment_store.context_properties(conn, 1, 1)}
    assert seen == {"country": 2, "level": 1}


def test_hash_differs_per_content(store: Store) -> None:
    configuration_id = _configuration(store, BASE)
    experiment = _experiment(store, configuration_id)
    units = {hash_bucket(experiment.id, f"u{n}") < 5000: f"u{n}" for n in range(50)}
    in_a, in_b = _build(store, units[True]), _build(store, units[False])
    assert in_a["hash"] != in_b["hash"]


def test_read_answers_only_when_nothing_would_be_written(store: Store) -> None:
    configuration_id = _configuration(store, BASE)
    _experiment(store, configuration_id)
    bases = unit_bootstrap.Bases()

    def read(unit: str, **context: Any) -> dict[str, Any] | None:
        with store.read() as conn:
            return unit_bootstrap.read(conn, bases, 1, 1, unit, "user", context)

    assert read("u-9") is None  # not assigned yet: the caller must build
    built = _build(store, "u-9")
    assert read("u-9") == built  # assigned: the same answer, read-only
    assert read("u-9", country="fr") is None  # a context must be recorded: a write
