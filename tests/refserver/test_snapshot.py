"""refserver.snapshot: build on write, serve from memory, rebuild once when experiments expire."""

from __future__ import annotations

import json
from typing import Any

import pytest

from refserver import experiment_store
from refserver.configurations import NewConfiguration, insert_configuration
from refserver.experiment_summaries import ExperimentSummaries
from refserver.snapshot import SnapshotCache
from refserver.store import Store


def test_cache_follows_writes(store: Store) -> None:
    cache = SnapshotCache(store)
    empty = cache.get(1, 1)
    assert json.loads(empty.status_body)["primaryConfigurationId"] is None
    assert cache.get(1, 1) is empty  # served from memory
    with store.write() as conn:
        insert_configuration(conn, 1, 1, NewConfiguration(name="a", alias="a", document={"x": 1}))
    fresh = cache.get(1, 1)
    assert fresh.hash != empty.hash
    status = json.loads(fresh.status_body)
    bootstrap = json.loads(fresh.bootstrap_body)
    assert status["hash"] == bootstrap["hash"] == fresh.hash
    assert "configuration" not in status["configurations"][0]
    assert bootstrap["configurations"][0]["configuration"] == {"x": 1}


def test_expired_snapshot_is_rebuilt_once(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    summary = {"id": 1, "name": "e", "requiredProperties": ["level", "country"]}

    def summaries(conn: Any, application_id: int, environment_id: int, now: str) -> Any:
        calls.append(now)
        if len(calls) == 1:
            return ExperimentSummaries(
                user=[summary], server=[], expires_at="2000-01-01T00:00:00.000Z"
            )
        return ExperimentSummaries(user=[], server=[], expires_at=None)

    monkeypatch.setattr(experiment_store, "active_summaries", summaries)
    with store.write() as conn:
        insert_configuration(conn, 1, 2, NewConfiguration(name="a", alias="a"))
    assert len(calls) == 1
    cache = SnapshotCache(store)
    snap = cache.get(1, 2)  # stored one has expired: rebuilt, experiment gone
    assert len(calls) == 2
    assert json.loads(snap.status_body)["experiments"]["user"] == []
    cache.get(1, 2)
    cache.get(1, 2)
    assert len(calls) == 2


def test_required_properties_are_the_sorted_union(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def summaries(conn: Any, application_id: int, environment_id: int, now: str) -> Any:
        return ExperimentSummaries(
            user=[{"requiredProperties": ["b", "a"]}], server=[{"requiredProperties": ["a", "c"]}]
        )

    monkeypatch.setattr(experiment_store, "active_summaries", summaries)
    with store.write() as conn:
        insert_configuration(conn, 1, 1, NewConfiguration(name="a", alias="a"))
    status = json.loads(SnapshotCache(store).get(1, 1).status_body)
    assert status["requiredProperties"] == ["a", "b", "c"]


def test_cached_answers_from_memory_only_while_current(store: Store) -> None:
    cache = SnapshotCache(store)
    assert cache.cached(1) is None  # never loaded
    loaded = cache.get(1, 1)
    assert cache.cached(1) is loaded
    with store.write() as conn:
        insert_configuration(conn, 1, 1, NewConfiguration(name="a", alias="a", document={"x": 1}))
    assert cache.cached(1) is None  # a write happened: get must reload
    fresh = cache.get(1, 1)
    assert fresh.hash != loaded.hash and cache.cached(1) is fresh
