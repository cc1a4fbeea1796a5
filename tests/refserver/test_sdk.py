"""The SDK endpoints over a real socket: headers, ETag/304, snapshot hash, bootstrap identity."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.refserver.conftest import Api

STATUS_FIELDS = {
    "hash",
    "configurations",
    "primaryConfigurationId",
    "experiments",
    "requiredProperties",
}


def test_status_snapshot_shape_and_etag(api: Api) -> None:
    record = api.created(name="Status Shape", configuration={"k": 1}, environment_id=2)
    response = api.status(key="production", environment="production")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == STATUS_FIELDS
    assert response.headers["etag"] == f'"{body["hash"]}"'
    assert response.headers["content-type"] == "application/json"
    entry = {"id": record["id"], "name": "Status Shape", "alias": "status-shape",
             "hash": record["contentHash"]}  # fmt: skip
    assert entry in body["configurations"]
    ids = [c["id"] for c in body["configurations"]]
    assert ids == sorted(ids) and body["primaryConfigurationId"] == ids[0]
    assert body["experiments"] == {"user": [], "server": []}
    without = {k: v for k, v in body.items() if k != "hash"}
    text = json.dumps(without, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    assert body["hash"] == hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(
    "if_none_match",
    ['"{h}"', 'W/"{h}"', '"other", "{h}"', "*", "{h}"],
)
def test_if_none_match_forms_answer_304(api: Api, if_none_match: str) -> None:
    current = api.status().json()["hash"]
    response = api.status(**{"if-none-match": if_none_match.format(h=current)})
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == f'"{current}"'


def test_query_hash_answers_304_and_stale_hash_200(api: Api) -> None:
    current = api.status().json()["hash"]
    fresh = api.client.get(
        "/sdk/v2/status", params={"hash": current}, headers={"authorization": api.keys["all"]}
    )
    assert fresh.status_code == 304
    stale = api.client.get(
        "/sdk/v2/status", params={"hash": "0" * 64}, headers={"authorization": api.keys["all"]}
    )
    assert stale.status_code == 200
    empty = api.client.get("/sdk/v2/status?hash=", headers={"authorization": api.keys["all"]})
    assert empty.status_code == 400 and empty.json()["errorCode"] == "INVALID_HASH"


def test_snapshot_hash_changes_iff_content_changes(api: Api) -> None:
    first = api.status().json()["hash"]
    assert api.status().json()["hash"] == first
    record = api.created(configuration={"a": 1})
    second = api.status().json()["hash"]
    assert second != first
    api.patch(record["id"], {"operations": [{"op": "replace", "path": "/a", "value": 1}]})
    assert api.status().json()["hash"] == second
    api.patch(record["id"], {"operations": [{"op": "replace", "path": "/a", "value": 2}]})
    assert api.status().json()["hash"] != second
    api.created(configuration={"other": 1}, environment_id=2)  # another environment
    third = api.status().json()["hash"]
    api.created(configuration={"again": 1}, environment_id=2)
    assert api.status().json()["hash"] == third


# header, value, errorCode
BAD_HEADERS: list[tuple[str, str, str]] = [
    ("environment", "", "INVALID_ENVIRONMENT"),
    ("environment", "staging", "INVALID_ENVIRONMENT"),
    ("environment", "Production", "INVALID_ENVIRONMENT"),
    ("project-id", "0", "INVALID_PROJECT_ID"),
    ("project-id", "9007199254740992", "INVALID_PROJECT_ID"),
    ("project-id", "99999999999999999999999999", "INVALID_PROJECT_ID"),
    ("project-id", "-5", "INVALID_PROJECT_ID"),
    ("project-id", "1e3", "INVALID_PROJECT_ID"),
    ("project-id", "", "INVALID_PROJECT_ID"),
    ("server-id", "", "INVALID_SERVER_ID"),
    ("server-id", "x" * 129, "INVALID_SERVER_ID"),
]


@pytest.mark.parametrize(("header", "value", "code"), BAD_HEADERS)
@pytest.mark.parametrize("endpoint", ["/sdk/v2/status", "/sdk/v2/bootstrap"])
def test_bad_sdk_headers_are_400(
    api: Api, endpoint: str, header: str, value: str, code: str
) -> None:
    response = api.client.get(endpoint, headers={"authorization": api.keys["all"], header: value})
    assert response.status_code == 400
    assert response.json()["errorCode"] == code


@pytest.mark.parametrize(
    ("header", "value"),
    [("project-id", "1"), ("project-id", "9007199254740991"), ("server-id", "x" * 128),
     ("server-id", "s"), ("sdkversion", "js-server/1.0.0")],
)  # fmt: skip
def test_boundary_header_values_are_accepted(api: Api, header: str, value: str) -> None:
    assert api.status(**{header: value}).status_code == 200


def test_bootstrap_carries_documents_with_the_status_hash(api: Api) -> None:
    api.created(configuration={"doc": [1, 2]})
    status = api.status()
    bootstrap = api.bootstrap()
    body = bootstrap.json()
    assert body["hash"] == status.json()["hash"]
    assert bootstrap.headers["etag"] == status.headers["etag"]
    assert all({"configuration", "privacy"} <= set(c) for c in body["configurations"])
    assert api.bootstrap(**{"if-none-match": bootstrap.headers["etag"]}).status_code == 304


def test_bootstrap_with_identity_is_hashed_and_cacheable(api: Api) -> None:
    response = api.bootstrap(**{"unit-id": "player-1", "unit-context": '{"country": "fi"}'})
    assert response.status_code == 200
    body = response.json()
    assert "assignments" in body
    assert response.headers["etag"] == f'"{body["hash"]}"'
    repeat = api.bootstrap(**{"unit-id": "player-1", "if-none-match": response.headers["etag"]})
    assert repeat.status_code == 304


@pytest.mark.parametrize(
    ("header", "value", "code"),
    [
        ("unit-id", "", "INVALID_UNIT_ID"),
        ("unit-id", "u" * 257, "INVALID_UNIT_ID"),
        ("unit-type", "robot", "INVALID_UNIT_TYPE"),
        ("unit-context", "not json", "INVALID_CONTEXT"),
        ("unit-context", "[1]", "INVALID_CONTEXT"),
        ("unit-context", '{"a": {"nested": 1}}', "INVALID_CONTEXT"),
        ("unit-context", '{"a": NaN}', "INVALID_CONTEXT"),
    ],
)
def test_bad_identity_headers_are_400(api: Api, header: str, value: str, code: str) -> None:
    headers = {"unit-id": "player-2", header: value}
    response = api.bootstrap(**headers)
    assert response.status_code == 400
    assert response.json()["errorCode"] == code


def test_polling_hint_is_absent_without_load(api: Api) -> None:
    assert "polling" not in api.status().json()
