"""Bad input on every experiment endpoint over a real socket: 400, 404, 405, 409 or 415, never a
500 (one server per module with a fresh SQLite file, ``experiment_target``)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.refserver.experiment_api import (
    APP,
    ExperimentTarget,
    create_configuration,
    create_experiment,
    mgmt,
)

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
def probe(http: httpx.Client, target: ExperimentTarget) -> dict[str, int]:
    configuration_id = create_configuration(http, target, {"probe": True})
    experiment = create_experiment(http, target, **_valid_create(configuration_id))
    return {"configuration": configuration_id, "experiment": experiment["id"]}


@pytest.mark.parametrize("overrides", [b[1] for b in BAD_CREATE], ids=[b[0] for b in BAD_CREATE])
def test_bad_create_is_400(
    http: httpx.Client, target: ExperimentTarget, probe: dict[str, int], overrides: dict[str, Any]
) -> None:
    response = http.post(
        APP, headers=mgmt(target), json=_valid_create(probe["configuration"], **overrides)
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["errorCode"] == "INVALID_EXPERIMENT" and body["message"]


def test_base_configuration_of_another_environment_is_400(
    http: httpx.Client, target: ExperimentTarget, probe: dict[str, int]
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
def test_malformed_json_is_400(http: httpx.Client, target: ExperimentTarget, raw: bytes) -> None:
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
    http: httpx.Client, target: ExperimentTarget, method: str, suffix: str, experiment_id: str
) -> None:
    body = {"unitId": "u", "groupId": 1} if method != "GET" else None
    response = http.request(
        method, f"{APP}/{experiment_id}{suffix}", headers=mgmt(target), json=body
    )
    assert response.status_code == 404, response.text
    assert response.json()["errorCode"] == "EXPERIMENT_NOT_FOUND"


def test_non_integer_project_is_404(http: httpx.Client, target: ExperimentTarget) -> None:
    for project in ("abc", "0", "424242"):
        response = http.get(f"/application/{project}/v2/experiments", headers=mgmt(target))
        assert response.status_code == 404, response.text


@pytest.mark.parametrize("environment", ["", "abc", "-1", "99"])
def test_bad_environment_header(
    http: httpx.Client, target: ExperimentTarget, environment: str
) -> None:
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
    target: ExperimentTarget,
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
    http: httpx.Client, target: ExperimentTarget, probe: dict[str, int]
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
    http: httpx.Client, target: ExperimentTarget, probe: dict[str, int], path: str, query: str
) -> None:
    url = f"{APP}{path.format(id=probe['experiment'])}?{query}"
    response = http.get(url, headers=mgmt(target))
    assert response.status_code == 400, response.text
    assert response.json()["errorCode"] in ("INVALID_REQUEST", "INVALID_CURSOR")


def test_wrong_method_is_405(
    http: httpx.Client, target: ExperimentTarget, probe: dict[str, int]
) -> None:
    response = http.delete(f"{APP}/{probe['experiment']}", headers=mgmt(target))
    assert response.status_code == 405
    response = http.put(f"{APP}/{probe['experiment']}/rollout", headers=mgmt(target))
    assert response.status_code == 405
    assert "PATCH" in response.headers["allow"]


def test_non_json_media_type_is_415(http: httpx.Client, target: ExperimentTarget) -> None:
    headers = {**mgmt(target), "content-type": "text/plain"}
    response = http.post(APP, headers=headers, content=b"name=x")
    assert response.status_code == 415


@pytest.mark.parametrize(
    ("method", "suffix"), [(m, s) for m, s in ID_ROUTES if m != "GET"], ids=lambda v: str(v)
)
def test_unknown_experiment_is_404_before_the_body_is_read(
    http: httpx.Client, target: ExperimentTarget, method: str, suffix: str
) -> None:
    headers = {**mgmt(target), "content-type": "application/json"}
    for content in (b"", b"{", b"[]"):
        response = http.request(method, f"{APP}/999999{suffix}", headers=headers, content=content)
        assert response.status_code == 404, (content, response.text)
