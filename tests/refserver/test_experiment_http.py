"""End-to-end tests of the experiment endpoints over a real socket (uvicorn on 127.0.0.1:0).

One server per module with a fresh SQLite file. Covers the lifecycle flow (create -> snapshot ->
bootstrap with identity -> manual -> unenroll/reactivate -> counts -> rollout -> terminate), the
assignment modes, and bad input on every experiment endpoint (400/404/409, never 500).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from refserver.provisioning import access_token, sdk_key
from refserver.runner import start_server

APP = "/application/1/v2/experiments"


@dataclass
class Target:
    base_url: str
    pat: str
    sdk_key: str
    viewer_pat: str

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=10.0)


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    db = Path(tmp_path_factory.mktemp("experiments")) / "refserver.db"
    with start_server(db, rate_burst=10_000, rate_refill=10_000.0) as server:
        with server.state.store.read() as conn:
            pat = access_token(conn, "demo")
            viewer = access_token(conn, "viewer")
            key, _ = sdk_key(conn, "development")
        yield Target(server.base_url, pat, key, viewer)


@pytest.fixture(scope="module")
def http(target: Target) -> Iterator[httpx.Client]:
    with target.client() as client:
        yield client


def mgmt(target: Target, environment_id: int = 1, token: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token or target.pat}", "environment_id": str(environment_id)}


def sdk(target: Target, **identity: str) -> dict[str, str]:
    return {"authorization": target.sdk_key, **identity}


def create_configuration(http: httpx.Client, target: Target, document: Any) -> int:
    response = http.post(
        "/application/1/v2/configuration",
        headers=mgmt(target),
        json={"name": f"config {time.monotonic_ns()}", "configuration": document},
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def create_experiment(http: httpx.Client, target: Target, **fields: Any) -> dict[str, Any]:
    response = http.post(APP, headers=mgmt(target), json=fields)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def status(http: httpx.Client, target: Target) -> dict[str, Any]:
    response = http.get("/sdk/v2/status", headers=sdk(target))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def bootstrap(
    http: httpx.Client, target: Target, unit: str, context: dict[str, Any] | None = None
) -> dict[str, Any]:
    headers = sdk(target, **{"unit-id": unit, "unit-type": "user"})
    if context is not None:
        headers["unit-context"] = json.dumps(context)
    response = http.get("/sdk/v2/bootstrap", headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def assignment_in(payload: dict[str, Any], experiment_id: int) -> dict[str, Any] | None:
    return next((a for a in payload["assignments"] if a["experimentId"] == experiment_id), None)


def document_in(payload: dict[str, Any], configuration_id: int) -> Any:
    return next(c for c in payload["configurations"] if c["id"] == configuration_id)[
        "configuration"
    ]


def bucket(key: str) -> int:
    """The documented hash, computed independently of refserver.assignment."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:16], 16) % 10000


def all_pages(
    http: httpx.Client, target: Target, path: str, limit: int, **extra: str
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": limit, **extra}
    while True:
        response = http.get(path, headers=mgmt(target), params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        assert len(body["items"]) <= limit
        items += body["items"]
        if body["nextCursor"] is None:
            return items
        params = {"limit": limit, "cursor": body["nextCursor"], **extra}


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


def test_lifecycle_flow(http: httpx.Client, target: Target) -> None:
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


def test_round_robin_is_balanced(http: httpx.Client, target: Target) -> None:
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
    http: httpx.Client, target: Target, permanent: bool
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


def test_required_properties_and_context_properties(http: httpx.Client, target: Target) -> None:
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


def test_server_unit_type_goes_to_server_list(http: httpx.Client, target: Target) -> None:
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


def test_viewer_reads_but_cannot_write(http: httpx.Client, target: Target) -> None:
    headers = mgmt(target, token=target.viewer_pat)
    assert http.get(APP, headers=headers).status_code == 200
    response = http.post(APP, headers=headers, json={"name": "x"})
    assert response.status_code == 403
    assert response.json()["errorCode"] == "PERMISSION_DENIED"
    assert http.get(APP, headers={"environment_id": "1"}).status_code == 401


# ---------------------------------------------------------------- bad input: 400/404, never 500


def _valid_create(configuration_id: int, **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "bad input probe",
        "unitType": "user",
        "baseConfigurationId": configuration_id,
        "groups": [
            {"label": "a", "weight": 6000, "changeset": []},
            {"label": "b", "weight": 4000, "changeset": []},
        ],
    }
    body.update(overrides)
    return body


BAD_CREATE: list[tuple[str, dict[str, Any]]] = [
    ("name wrong type", {"name": 5}),
    ("name empty", {"name": ""}),
    ("unknown unitType", {"unitType": "device"}),
    ("unknown mode", {"assignmentMode": "random"}),
    ("base id a string", {"baseConfigurationId": "1"}),
    ("base id unknown", {"baseConfigurationId": 999999}),
    ("base id negative", {"baseConfigurationId": -1}),
    ("base id huge", {"baseConfigurationId": 10**30}),
    ("autoAssignment not bool", {"autoAssignment": "yes"}),
    ("requiredProperties not strings", {"requiredProperties": [1]}),
    ("no groups", {"groups": []}),
    ("groups not an array", {"groups": {"a": 1}}),
    (
        "nine groups summing to 10000",
        {
            "groups": [{"label": f"g{i}", "weight": 1111, "changeset": []} for i in range(8)]
            + [{"label": "z", "weight": 1112, "changeset": []}]
        },
    ),
    (
        "weights under 10000",
        {
            "groups": [
                {"label": "a", "weight": 5000, "changeset": []},
                {"label": "b", "weight": 4000, "changeset": []},
            ]
        },
    ),
    (
        "weights over 10000",
        {
            "groups": [
                {"label": "a", "weight": 6000, "changeset": []},
                {"label": "b", "weight": 6000, "changeset": []},
            ]
        },
    ),
    (
        "weight a float",
        {
            "groups": [
                {"label": "a", "weight": 5000.5, "changeset": []},
                {"label": "b", "weight": 4999.5, "changeset": []},
            ]
        },
    ),
    (
        "weight missing",
        {
            "groups": [
                {"label": "a", "changeset": []},
                {"label": "b", "weight": 10000, "changeset": []},
            ]
        },
    ),
    ("changeset missing", {"groups": [{"label": "a", "weight": 10000}]}),
    ("weight in roundRobin", {"assignmentMode": "roundRobin"}),
    ("label missing", {"groups": [{"weight": 10000, "changeset": []}]}),
    (
        "changeset segment not a string",
        {
            "groups": [
                {
                    "label": "a",
                    "weight": 10000,
                    "changeset": [{"op": "set", "path": ["a", 0], "value": 1}],
                }
            ]
        },
    ),
    (
        "duplicate labels",
        {
            "groups": [
                {"label": "a", "weight": 5000, "changeset": []},
                {"label": "a", "weight": 5000, "changeset": []},
            ]
        },
    ),
    (
        "bad changeset op",
        {
            "groups": [
                {
                    "label": "a",
                    "weight": 10000,
                    "changeset": [{"op": "replace", "path": ["x"], "value": 1}],
                }
            ]
        },
    ),
    (
        "changeset path a pointer",
        {
            "groups": [
                {
                    "label": "a",
                    "weight": 10000,
                    "changeset": [{"op": "set", "path": "/x", "value": 1}],
                }
            ]
        },
    ),
    (
        "endsAt before startsAt",
        {"startsAt": "2030-01-02T00:00:00Z", "endsAt": "2030-01-01T00:00:00Z"},
    ),
    (
        "endsAt equal startsAt",
        {"startsAt": "2030-01-02T00:00:00Z", "endsAt": "2030-01-02T00:00:00Z"},
    ),
    ("startsAt not a date", {"startsAt": "tomorrow"}),
    ("startsAt a number", {"startsAt": 1700000000}),
    ("endsAt year 0001", {"endsAt": "0001-01-01T00:00:00Z"}),
    ("startsAt year 9999", {"startsAt": "9999-12-31T23:59:59Z"}),
]


@pytest.fixture(scope="module")
def probe(http: httpx.Client, target: Target) -> dict[str, int]:
    configuration_id = create_configuration(http, target, {"probe": True})
    experiment = create_experiment(http, target, **_valid_create(configuration_id))
    return {"configuration": configuration_id, "experiment": experiment["id"]}


@pytest.mark.parametrize("overrides", [b[1] for b in BAD_CREATE], ids=[b[0] for b in BAD_CREATE])
def test_bad_create_is_400(
    http: httpx.Client, target: Target, probe: dict[str, int], overrides: dict[str, Any]
) -> None:
    response = http.post(
        APP, headers=mgmt(target), json=_valid_create(probe["configuration"], **overrides)
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["errorCode"] == "INVALID_EXPERIMENT" and body["message"]


def test_base_configuration_of_another_environment_is_400(
    http: httpx.Client, target: Target, probe: dict[str, int]
) -> None:
    response = http.post(
        APP, headers=mgmt(target, environment_id=2), json=_valid_create(probe["configuration"])
    )
    assert response.status_code == 400, response.text


@pytest.mark.parametrize(
    "raw",
    [b"{", b"[]", b"null", b'"text"', b"\xff\xfe", b'{"name": NaN}'],
    ids=["truncated", "array", "null", "string", "not utf-8", "NaN"],
)
def test_malformed_json_is_400(http: httpx.Client, target: Target, raw: bytes) -> None:
    headers = {**mgmt(target), "content-type": "application/json"}
    for path in (APP, f"{APP}/1/assignments", f"{APP}/1/assignments/unenroll"):
        response = http.post(path, headers=headers, content=raw)
        assert response.status_code in (400, 404), (path, response.text)
    response = http.patch(f"{APP}/1/rollout", headers=headers, content=raw)
    assert response.status_code in (400, 404), response.text


ID_ROUTES = [
    ("GET", ""),
    ("GET", "/assignment-counts"),
    ("GET", "/assignments"),
    ("POST", "/assignments"),
    ("POST", "/assignments/reactivate"),
    ("POST", "/assignments/unenroll"),
    ("GET", "/members"),
    ("GET", "/rollout"),
    ("PATCH", "/rollout"),
    ("POST", "/terminate"),
]


@pytest.mark.parametrize(
    "experiment_id", ["999999", "abc", "0", "-1", "1.5", "99999999999999999999999"]
)
@pytest.mark.parametrize(("method", "suffix"), ID_ROUTES)
def test_unknown_or_non_integer_experiment_is_404(
    http: httpx.Client, target: Target, method: str, suffix: str, experiment_id: str
) -> None:
    body = {"unitId": "u", "groupId": 1} if method != "GET" else None
    response = http.request(
        method, f"{APP}/{experiment_id}{suffix}", headers=mgmt(target), json=body
    )
    assert response.status_code == 404, response.text
    assert response.json()["errorCode"] == "EXPERIMENT_NOT_FOUND"


def test_non_integer_project_is_404(http: httpx.Client, target: Target) -> None:
    for project in ("abc", "0", "424242"):
        response = http.get(f"/application/{project}/v2/experiments", headers=mgmt(target))
        assert response.status_code == 404, response.text


@pytest.mark.parametrize("environment", ["", "abc", "-1", "99"])
def test_bad_environment_header(http: httpx.Client, target: Target, environment: str) -> None:
    headers = {"Authorization": f"Bearer {target.pat}", "environment_id": environment}
    response = http.get(APP, headers=headers)
    assert response.status_code in (400, 404), response.text


BAD_ACTIONS: list[tuple[str, str, Any, int, str]] = [
    ("POST", "/assignments", {"unitId": "u"}, 400, "INVALID_REQUEST"),
    ("POST", "/assignments", {"unitId": "", "groupId": 1}, 400, "INVALID_REQUEST"),
    ("POST", "/assignments", {"unitId": "u" * 257, "groupId": 1}, 400, "INVALID_REQUEST"),
    ("POST", "/assignments", {"unitId": 5, "groupId": 1}, 400, "INVALID_REQUEST"),
    ("POST", "/assignments", {"unitId": "u", "groupId": "1"}, 400, "INVALID_REQUEST"),
    ("POST", "/assignments", {"unitId": "u", "groupId": 999999}, 404, "GROUP_NOT_FOUND"),
    ("POST", "/assignments/unenroll", {"unitId": "never-seen"}, 404, "UNIT_NOT_FOUND"),
    ("POST", "/assignments/reactivate", {"unitId": "never-seen"}, 404, "UNIT_NOT_FOUND"),
    ("POST", "/assignments/unenroll", {}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"percentage": 101}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"percentage": -1}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"percentage": "50"}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"percentage": True}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"weights": [5000, 5000]}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"weights": {"abc": 5000}}, 400, "INVALID_REQUEST"),
    ("PATCH", "/rollout", {"weights": {"999999": 5000}}, 404, "GROUP_NOT_FOUND"),
]


@pytest.mark.parametrize(
    ("method", "suffix", "body", "code", "error"),
    BAD_ACTIONS,
    ids=[f"{m} {s} {json.dumps(b)[:40]}" for m, s, b, _, _ in BAD_ACTIONS],
)
def test_bad_action_input(
    http: httpx.Client,
    target: Target,
    probe: dict[str, int],
    method: str,
    suffix: str,
    body: Any,
    code: int,
    error: str,
) -> None:
    response = http.request(
        method, f"{APP}/{probe['experiment']}{suffix}", headers=mgmt(target), json=body
    )
    assert response.status_code == code, response.text
    assert response.json()["errorCode"] == error


def test_rollout_weights_must_sum(
    http: httpx.Client, target: Target, probe: dict[str, int]
) -> None:
    experiment = http.get(f"{APP}/{probe['experiment']}", headers=mgmt(target)).json()
    first = experiment["groups"][0]["id"]
    response = http.patch(
        f"{APP}/{probe['experiment']}/rollout",
        headers=mgmt(target),
        json={"weights": {str(first): 1}},
    )
    assert response.status_code == 400, response.text


BAD_PAGING = ["limit=0", "limit=101", "limit=abc", "limit=-5", "cursor=%%%", "cursor=bm9wZQ"]


@pytest.mark.parametrize(
    ("path", "query"),
    [(path, query) for path in ("", "/{id}/assignments", "/{id}/members") for query in BAD_PAGING]
    + [("/{id}/members", "status=gone"), ("/{id}/assignments", "status=")],
)
def test_bad_paging_is_400(
    http: httpx.Client, target: Target, probe: dict[str, int], path: str, query: str
) -> None:
    url = f"{APP}{path.format(id=probe['experiment'])}?{query}"
    response = http.get(url, headers=mgmt(target))
    assert response.status_code == 400, response.text
    assert response.json()["errorCode"] in ("INVALID_REQUEST", "INVALID_CURSOR")


def test_wrong_method_is_405(http: httpx.Client, target: Target, probe: dict[str, int]) -> None:
    response = http.delete(f"{APP}/{probe['experiment']}", headers=mgmt(target))
    assert response.status_code == 405
    response = http.put(f"{APP}/{probe['experiment']}/rollout", headers=mgmt(target))
    assert response.status_code == 405
    assert "PATCH" in response.headers["allow"]


def test_non_json_media_type_is_415(http: httpx.Client, target: Target) -> None:
    headers = {**mgmt(target), "content-type": "text/plain"}
    response = http.post(APP, headers=headers, content=b"name=x")
    assert response.status_code == 415


@pytest.mark.parametrize(
    ("method", "suffix"), [(m, s) for m, s in ID_ROUTES if m != "GET"], ids=lambda v: str(v)
)
def test_unknown_experiment_is_404_before_the_body_is_read(
    http: httpx.Client, target: Target, method: str, suffix: str
) -> None:
    headers = {**mgmt(target), "content-type": "application/json"}
    for content in (b"", b"{", b"[]"):
        response = http.request(method, f"{APP}/999999{suffix}", headers=headers, content=content)
        assert response.status_code == 404, (content, response.text)
