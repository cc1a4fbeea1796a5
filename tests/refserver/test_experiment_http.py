"""End-to-end tests of the experiment endpoints over a real socket (uvicorn on 127.0.0.1:0): the
lifecycle flow (create -> snapshot -> bootstrap with identity -> manual -> unenroll/reactivate ->
counts -> rollout -> terminate) and the assignment modes. One server per module with a fresh
SQLite file (``experiment_target``); bad input: ``test_experiment_http_refusals.py``.
"""

from __future__ import annotations

import httpx
import pytest

from tests.refserver.experiment_api import (
    APP,
    ExperimentTarget,
    all_pages,
    assignment_in,
    bootstrap,
    bucket,
    create_configuration,
    create_experiment,
    document_in,
    mgmt,
    status,
)

BASE_DOCUMENT = {"economy": {"coins": 100}, "motd": "hi"}
TWO_GROUPS = [
    {
        "label": "control",
        "weight": 5000,
        "changeset": [{"op": "set", "path": ["economy", "coins"], "value": 200}],
    },
    {
        "label": "variant",
        "weight": 5000,
        "changeset": [{"op": "set", "path": ["motd"], "value": "hey"}],
    },
]


def test_lifecycle_flow(http: httpx.Client, target: ExperimentTarget) -> None:
    configuration_id = create_configuration(http, target, BASE_DOCUMENT)
    before = status(http, target)

    experiment = create_experiment(
        http,
        target,
        name="coins test",
        unitType="user",
        baseConfigurationId=configuration_id,
        groups=TWO_GROUPS,
    )
    experiment_id = experiment["id"]
    assert experiment["status"] == "running"
    assert [g["ordinal"] for g in experiment["groups"]] == [0, 1]
    control, variant = (g["id"] for g in experiment["groups"])

    after_create = status(http, target)
    assert after_create["hash"] != before["hash"]
    summary = next(e for e in after_create["experiments"]["user"] if e["id"] == experiment_id)
    assert summary["groups"][0] == {"id": control, "label": "control", "weight": 5000, "ordinal": 0}
    assert all(e["id"] != experiment_id for e in after_create["experiments"]["server"])

    # bootstrap with identity: deterministic group, merged content, persisted assignment
    unit = "player-1"
    first = bootstrap(http, target, unit)
    second = bootstrap(http, target, unit)
    expected_group = control if bucket(f"{experiment_id}:{unit}") < 5000 else variant
    assigned = assignment_in(first, experiment_id)
    assert assigned is not None
    assert assigned == assignment_in(second, experiment_id)
    assert assigned["groupId"] == expected_group
    assert assigned["source"] == "weightedHash"
    assert assigned["assignmentVersion"] == 1
    assert first["hash"] == second["hash"]
    merged = document_in(first, configuration_id)
    expected_doc = (
        {"economy": {"coins": 200}, "motd": "hi"}
        if expected_group == control
        else {"economy": {"coins": 100}, "motd": "hey"}
    )
    assert merged == expected_doc

    # manual assignment overrides the hash
    other = variant if expected_group == control else control
    response = http.post(
        f"{APP}/{experiment_id}/assignments",
        headers=mgmt(target),
        json={"unitId": unit, "groupId": other},
    )
    assert response.status_code == 200, response.text
    assert response.json()["source"] == "manual"
    third = bootstrap(http, target, unit)
    manual = assignment_in(third, experiment_id)
    assert manual is not None
    assert (manual["groupId"], manual["source"], manual["assignmentVersion"]) == (
        other,
        "manual",
        2,
    )
    assert document_in(third, configuration_id) != merged

    # unenroll: base content; reactivate: the group's content again
    response = http.post(
        f"{APP}/{experiment_id}/assignments/unenroll", headers=mgmt(target), json={"unitId": unit}
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "unenrolled"
    unenrolled = bootstrap(http, target, unit)
    assert document_in(unenrolled, configuration_id) == BASE_DOCUMENT
    entry = assignment_in(unenrolled, experiment_id)
    assert entry is not None and entry["status"] == "unenrolled"
    response = http.post(
        f"{APP}/{experiment_id}/assignments/reactivate", headers=mgmt(target), json={"unitId": unit}
    )
    assert response.status_code == 200 and response.json()["status"] == "active"
    assert document_in(bootstrap(http, target, unit), configuration_id) == document_in(
        third, configuration_id
    )

    # more units; then counts agree with the members list
    for n in range(12):
        bootstrap(http, target, f"unit-{n}")
    http.post(
        f"{APP}/{experiment_id}/assignments/unenroll",
        headers=mgmt(target),
        json={"unitId": "unit-3"},
    )
    members = all_pages(http, target, f"{APP}/{experiment_id}/members", limit=5)
    assert len({m["unitId"] for m in members}) == len(members) == 13
    counts = http.get(f"{APP}/{experiment_id}/assignment-counts", headers=mgmt(target)).json()
    assert counts["total"] == 13
    assert counts["unenrolled"] == sum(m["status"] == "unenrolled" for m in members) == 1
    for group in counts["groups"]:
        in_group = [m for m in members if m["groupId"] == group["groupId"]]
        assert group["active"] == sum(m["status"] == "active" for m in in_group)
        assert group["unenrolled"] == sum(m["status"] == "unenrolled" for m in in_group)
    only_active = all_pages(http, target, f"{APP}/{experiment_id}/members", 5, status="active")
    assert len(only_active) == 12
    overall = http.get(f"{APP}/assignment-counts", headers=mgmt(target)).json()["items"]
    mine = next(i for i in overall if i["experimentId"] == experiment_id)
    assert (mine["active"], mine["unenrolled"], mine["total"]) == (12, 1, 13)
    assignments = all_pages(http, target, f"{APP}/{experiment_id}/assignments", limit=4)
    assert {a["unitId"] for a in assignments} == {m["unitId"] for m in members}

    # rollout: 0% enrols no new unit and moves the snapshot hash
    before_rollout = status(http, target)["hash"]
    response = http.patch(
        f"{APP}/{experiment_id}/rollout", headers=mgmt(target), json={"percentage": 0}
    )
    assert response.status_code == 200, response.text
    assert response.json()["percentage"] == 0
    got = http.get(f"{APP}/{experiment_id}/rollout", headers=mgmt(target)).json()
    assert got == {
        "experimentId": experiment_id,
        "percentage": 0,
        "groups": [
            {"id": control, "label": "control", "weight": 5000},
            {"id": variant, "label": "variant", "weight": 5000},
        ],
    }
    assert status(http, target)["hash"] != before_rollout
    assert assignment_in(bootstrap(http, target, "late-unit"), experiment_id) is None

    # terminate: gone from the snapshot, new hash; nothing leaves terminated
    before_terminate = status(http, target)["hash"]
    response = http.post(f"{APP}/{experiment_id}/terminate", headers=mgmt(target))
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "terminated"
    assert response.json()["terminatedAt"] is not None
    final = status(http, target)
    assert final["hash"] != before_terminate
    assert all(e["id"] != experiment_id for e in final["experiments"]["user"])
    for method, suffix, body in [
        ("POST", "/terminate", None),
        ("PATCH", "/rollout", {"percentage": 50}),
        ("POST", "/assignments", {"unitId": unit, "groupId": control}),
        ("POST", "/assignments/unenroll", {"unitId": unit}),
        ("POST", "/assignments/reactivate", {"unitId": unit}),
    ]:
        response = http.request(
            method, f"{APP}/{experiment_id}{suffix}", headers=mgmt(target), json=body
        )
        assert response.status_code == 409, (suffix, response.text)
        assert response.json()["errorCode"] == "INVALID_TRANSITION"
    assert document_in(bootstrap(http, target, unit), configuration_id) == BASE_DOCUMENT
    listed = all_pages(http, target, APP, limit=2)
    assert any(e["id"] == experiment_id and e["status"] == "terminated" for e in listed)


def test_round_robin_is_balanced(http: httpx.Client, target: ExperimentTarget) -> None:
    configuration_id = create_configuration(http, target, {"k": 0})
    experiment = create_experiment(
        http,
        target,
        name="rr",
        unitType="user",
        assignmentMode="roundRobin",
        baseConfigurationId=configuration_id,
        groups=[
            {"label": "a", "changeset": [{"op": "set", "path": ["k"], "value": 1}]},
            {"label": "b", "weight": None, "changeset": [{"op": "set", "path": ["k"], "value": 2}]},
            {"label": "c", "changeset": [{"op": "delete", "path": ["k"]}]},
        ],
    )
    assert [g["weight"] for g in experiment["groups"]] == [None, None, None]
    seen: dict[int, int] = {}
    for n in range(9):
        entry = assignment_in(bootstrap(http, target, f"rr-{n}"), experiment["id"])
        assert entry is not None and entry["source"] == "roundRobin"
        seen[entry["groupId"]] = seen.get(entry["groupId"], 0) + 1
    assert sorted(seen.values()) == [3, 3, 3]
    again = assignment_in(bootstrap(http, target, "rr-0"), experiment["id"])
    assert again is not None and again["assignmentVersion"] == 1
    http.post(f"{APP}/{experiment['id']}/terminate", headers=mgmt(target))


@pytest.mark.parametrize("permanent", [True, False])
def test_weight_change_and_permanent_enrollment(
    http: httpx.Client, target: ExperimentTarget, permanent: bool
) -> None:
    configuration_id = create_configuration(http, target, {})
    experiment = create_experiment(
        http,
        target,
        name="perm",
        unitType="user",
        permanentEnrollment=permanent,
        baseConfigurationId=configuration_id,
        groups=[
            {"label": "a", "weight": 10000, "changeset": []},
            {"label": "b", "weight": 0, "changeset": []},
        ],
    )
    a, b = (g["id"] for g in experiment["groups"])
    first = assignment_in(bootstrap(http, target, "mover"), experiment["id"])
    assert first is not None and first["groupId"] == a
    before = status(http, target)["hash"]
    response = http.patch(
        f"{APP}/{experiment['id']}/rollout",
        headers=mgmt(target),
        json={"weights": {str(a): 0, str(b): 10000}},
    )
    assert response.status_code == 200, response.text
    assert status(http, target)["hash"] != before
    later = assignment_in(bootstrap(http, target, "mover"), experiment["id"])
    assert later is not None
    if permanent:
        assert (later["groupId"], later["assignmentVersion"]) == (a, 1)
    else:
        assert (later["groupId"], later["assignmentVersion"]) == (b, 2)
    http.post(f"{APP}/{experiment['id']}/terminate", headers=mgmt(target))


def test_required_properties_and_context_properties(
    http: httpx.Client, target: ExperimentTarget
) -> None:
    configuration_id = create_configuration(http, target, {"x": 1})
    experiment = create_experiment(
        http,
        target,
        name="needs level",
        unitType="user",
        requiredProperties=["level"],
        baseConfigurationId=configuration_id,
        groups=[
            {
                "label": "only",
                "weight": 10000,
                "changeset": [{"op": "set", "path": ["x"], "value": 2}],
            }
        ],
    )
    assert "level" in status(http, target)["requiredProperties"]
    without = bootstrap(http, target, "ctx-unit", {"country": "fr"})
    assert assignment_in(without, experiment["id"]) is None
    assert document_in(without, configuration_id) == {"x": 1}
    with_level = bootstrap(http, target, "ctx-unit", {"country": "fr", "level": 7})
    assert assignment_in(with_level, experiment["id"]) is not None
    assert document_in(with_level, configuration_id) == {"x": 2}
    items = http.get(f"{APP}/context-properties", headers=mgmt(target)).json()["items"]
    by_name = {i["name"]: i for i in items}
    assert by_name["country"]["seenCount"] >= 2 and by_name["level"]["seenCount"] >= 1
    assert by_name["country"]["lastSeenAt"].endswith("Z")
    catalog = http.get(f"{APP}/analytics-catalog", headers=mgmt(target)).json()["items"]
    assert {"id": experiment["groups"][0]["id"], "label": "only"} in next(
        c for c in catalog if c["id"] == experiment["id"]
    )["groups"]
    http.post(f"{APP}/{experiment['id']}/terminate", headers=mgmt(target))


def test_server_unit_type_goes_to_server_list(http: httpx.Client, target: ExperimentTarget) -> None:
    configuration_id = create_configuration(http, target, {})
    experiment = create_experiment(
        http,
        target,
        name="server side",
        unitType="server",
        baseConfigurationId=configuration_id,
        groups=[{"label": "only", "weight": 10000, "changeset": []}],
    )
    snap = status(http, target)
    assert any(e["id"] == experiment["id"] for e in snap["experiments"]["server"])
    assert all(e["id"] != experiment["id"] for e in snap["experiments"]["user"])
    assert assignment_in(bootstrap(http, target, "user-unit"), experiment["id"]) is None
    http.post(f"{APP}/{experiment['id']}/terminate", headers=mgmt(target))


def test_viewer_reads_but_cannot_write(http: httpx.Client, target: ExperimentTarget) -> None:
    headers = mgmt(target, token=target.viewer_pat)
    assert http.get(APP, headers=headers).status_code == 200
    response = http.post(APP, headers=headers, json={"name": "x"})
    assert response.status_code == 403
    assert response.json()["errorCode"] == "PERMISSION_DENIED"
    assert http.get(APP, headers={"environment_id": "1"}).status_code == 401
