"""Per-unit bootstrap over real HTTP: exactly-once under concurrent first calls, durability
across a restart, the read-only path for assigned units, and a base that follows writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from tests.refserver.conftest import Api, ServerFactory, api_for

EXPERIMENTS = "/application/1/v2/experiments"
BASE = {"bucket": {"group": "base"}, "coins": 100}


def _groups(weights: list[int | None]) -> list[dict[str, Any]]:
    return [
        {
            "label": f"g{n}",
            "weight": weight,
            "changeset": [{"op": "set", "path": ["bucket", "group"], "value": f"g{n}"}],
        }
        for n, weight in enumerate(weights)
    ]


def _experiment(api: Api, mode: str, weights: list[int | None]) -> tuple[int, int]:
    """(configuration id, experiment id) of a new configuration and a running experiment."""
    configuration_id = int(api.created(configuration=BASE, name=f"base {mode}")["id"])
    response = api.client.post(
        EXPERIMENTS,
        headers=api.pat_headers(),
        json={
            "name": f"split {mode}",
            "unitType": "user",
            "assignmentMode": mode,
            "baseConfigurationId": configuration_id,
            "groups": _groups(weights),
        },
    )
    assert response.status_code == 201, response.text
    return configuration_id, int(response.json()["id"])


def _unit(api: Api, unit: str, context: dict[str, Any] | None = None) -> dict[str, Any]:
    headers = {"unit-id": unit, "environment": "development"}
    if context is not None:
        headers["unit-context"] = json.dumps(context)
    response = api.bootstrap(**headers)
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == f'"{response.json()["hash"]}"'
    body: dict[str, Any] = response.json()
    return body


def _assignment(payload: dict[str, Any], experiment_id: int) -> dict[str, Any]:
    return next(a for a in payload["assignments"] if a["experimentId"] == experiment_id)


def _document(payload: dict[str, Any], configuration_id: int) -> Any:
    entry = next(c for c in payload["configurations"] if c["id"] == configuration_id)
    return entry["configuration"]


def _stored(api: Api, experiment_id: int) -> list[dict[str, Any]]:
    response = api.client.get(
        f"{EXPERIMENTS}/{experiment_id}/assignments",
        headers=api.pat_headers(),
        params={"limit": 100},
    )
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def _concurrently(calls: list[Callable[[], dict[str, Any]]]) -> list[dict[str, Any]]:
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def test_concurrent_first_calls_for_one_unit_assign_exactly_once(
    make_api: Callable[..., Api],
) -> None:
    api = make_api(rate_burst=10_000, rate_refill=10_000.0)
    _, robin = _experiment(api, "roundRobin", [None, None, None])

    def call(context: dict[str, Any] | None) -> Callable[[], dict[str, Any]]:
        def send() -> dict[str, Any]:
            with httpx.Client(base_url=api.server.base_url, timeout=10) as client:
                headers = {"authorization": api.keys["all"], "unit-id": "same-unit"}
                if context is not None:
                    headers["unit-context"] = json.dumps(context)
                response = client.get("/sdk/v2/bootstrap", headers=headers)
                assert response.status_code == 200, response.text
                body: dict[str, Any] = response.json()
                return body

        return send

    answers = _concurrently([call(None if n % 2 else {"n": n}) for n in range(16)])
    placed = {json.dumps(_assignment(a, robin), sort_keys=True) for a in answers}
    assert len(placed) == 1  # one decision, served to every caller
    (only,) = _stored(api, robin)
    assert (only["unitId"], only["assignmentVersion"]) == ("same-unit", 1)
    # the round-robin counter moved once: the next new unit takes the second group
    groups = [g["id"] for g in _experiment_groups(api, robin)]
    assert only["groupId"] == groups[0]
    assert _assignment(_unit(api, "next-unit"), robin)["groupId"] == groups[1]


def _experiment_groups(api: Api, experiment_id: int) -> list[dict[str, Any]]:
    response = api.client.get(f"{EXPERIMENTS}/{experiment_id}", headers=api.pat_headers())
    assert response.status_code == 200, response.text
    groups: list[dict[str, Any]] = response.json()["groups"]
    return groups


def test_assignments_survive_a_restart(make_server: ServerFactory, tmp_path: Path) -> None:
    db = tmp_path / "units.db"
    api = api_for(make_server(db_path=db))
    _, experiment_id = _experiment(api, "weightedHash", [5000, 3000, 2000])
    units = [f"durable-{n}" for n in range(40)]
    first = _concurrently([lambda unit=unit: _unit(api, unit, {"k": 1}) for unit in units])
    api.client.close()
    api.server.stop()

    again = api_for(make_server(db_path=db))
    stored = {a["unitId"]: a["groupId"] for a in _stored(again, experiment_id)}
    assigned = zip(units, first, strict=True)
    assert stored == {unit: _assignment(p, experiment_id)["groupId"] for unit, p in assigned}
    for unit, before in list(zip(units, first, strict=True))[:5]:
        assert _unit(again, unit) == _unit(again, unit)
        assert _assignment(_unit(again, unit), experiment_id) == _assignment(before, experiment_id)
    again.client.close()


def test_an_assigned_unit_without_context_is_answered_without_a_write(
    make_api: Callable[..., Api],
) -> None:
    api = make_api()
    _experiment(api, "weightedHash", [5000, 3000, 2000])
    state = api.server.state
    first = _unit(api, "reader")
    writes, generation = state.unit_writes.batches, state.store.generation
    assert _unit(api, "reader") == first
    assert (state.unit_writes.batches, state.store.generation) == (writes, generation)
    _unit(api, "another")  # a new unit does write
    assert state.unit_writes.batches == writes + 1
    assert state.store.generation == generation  # assignments change no cached state


def test_context_is_recorded_on_every_call_of_an_assigned_unit(
    make_api: Callable[..., Api],
) -> None:
    api = make_api()
    _experiment(api, "weightedHash", [5000, 3000, 2000])
    for _ in range(3):
        _unit(api, "counted", {"country": "fr"})
    response = api.client.get(f"{EXPERIMENTS}/context-properties", headers=api.pat_headers())
    assert response.status_code == 200, response.text
    assert [(p["name"], p["seenCount"]) for p in response.json()["items"]] == [("country", 3)]


def test_unit_content_follows_configuration_and_rollout_writes(
    make_api: Callable[..., Api],
) -> None:
    api = make_api()
    configuration_id, experiment_id = _experiment(api, "weightedHash", [10000, 0, 0])
    before = _unit(api, "follower")
    assert _document(before, configuration_id) == {"bucket": {"group": "g0"}, "coins": 100}
    patched = api.patch(
        configuration_id, {"operations": [{"op": "replace", "path": "/coins", "value": 7}]}
    )
    assert patched.status_code == 200, patched.text
    after = _unit(api, "follower")
    assert _document(after, configuration_id) == {"bucket": {"group": "g0"}, "coins": 7}
    assert after["hash"] != before["hash"]
    groups = [g["id"] for g in _experiment_groups(api, experiment_id)]
    moved = api.client.patch(
        f"{EXPERIMENTS}/{experiment_id}/rollout",
        headers=api.pat_headers(),
        json={"weights": {str(groups[0]): 0, str(groups[2]): 10000}},
    )
    assert moved.status_code == 200, moved.text
    rebucketed = _unit(api, "follower")
    assert _assignment(rebucketed, experiment_id)["groupId"] == groups[2]
    assert _assignment(rebucketed, experiment_id)["assignmentVersion"] == 2
    assert _document(rebucketed, configuration_id)["bucket"] == {"group": "g2"}
    assert rebucketed["experiments"] == api.status().json()["experiments"]
