"""Configuration management over a real socket: create and patch records (spec 4.1)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from tests.refserver.conftest import Api


def sha(document: Any) -> str:
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


RECORD_KEYS = {
    "id", "applicationId", "environmentId", "name", "alias", "description", "createdAt",
    "updatedAt", "deletedAt", "configuration", "isPrivate", "privateKeys", "comments",
    "contentHash",
}  # fmt: skip


def test_create_answers_201_with_the_full_record(api: Api) -> None:
    response = api.create(
        name="Shop Prices",
        configuration={"z": 1, "a": [1, 2]},
        description="prices",
        privateKeys=["/a"],
        comments={"z": "last letter"},
        team={"owner": "economy"},
        id=999,
    )
    assert response.status_code == 201
    assert response.headers["content-type"] == "application/json"
    record = response.json()
    assert set(record) == RECORD_KEYS | {"team"}
    assert record["id"] != 999  # record fields cannot be shadowed
    assert record["alias"] == "shop-prices"
    assert record["applicationId"] == 1 and record["environmentId"] == 1
    assert record["isPrivate"] is True and record["deletedAt"] is None
    assert record["comments"] == {"z": "last letter"} and record["team"] == {"owner": "economy"}
    assert list(record["configuration"]) == ["z", "a"]
    assert record["contentHash"] == sha({"z": 1, "a": [1, 2]})
    assert record["createdAt"].endswith("Z") and record["createdAt"] == record["updatedAt"]


def test_create_defaults(api: Api) -> None:
    record = api.created(name="Only Name", alias="Custom Alias!")
    assert record["alias"] == "custom-alias"
    assert record["configuration"] is None and record["contentHash"] == sha(None)
    assert record["privateKeys"] == [] and record["isPrivate"] is False
    assert record["description"] == "" and record["comments"] == {}


def test_patch_keeps_order_and_sidecar_sets_it(api: Api) -> None:
    record = api.created(configuration={"b": 1, "a": {"y": 1, "x": 2}})
    response = api.patch(
        record["id"],
        {
            "operations": [
                {"op": "add", "path": "/c", "value": 3},
                {"op": "replace", "path": "/b", "value": 10},
            ],
            "baseHash": record["contentHash"],
            "keyOrder": {"/a": ["x"]},
        },
    )
    assert response.status_code == 200, response.text
    patched = response.json()
    assert json.dumps(patched["configuration"]) == '{"b": 10, "a": {"x": 2, "y": 1}, "c": 3}'
    assert patched["contentHash"] == sha(patched["configuration"])
    assert patched["createdAt"] == record["createdAt"]
    assert patched["updatedAt"] >= record["updatedAt"]


def test_key_order_alone_changes_the_hash(api: Api) -> None:
    record = api.created(configuration={"a": 1, "b": 2})
    patched = api.patch(record["id"], {"keyOrder": {"": ["b"]}}).json()
    assert list(patched["configuration"]) == ["b", "a"]
    assert patched["contentHash"] != record["contentHash"]


def test_empty_and_no_op_patches_change_nothing(api: Api) -> None:
    record = api.created(configuration={"a": 1})
    for body in (
        {},
        {"operations": []},
        {"operations": [{"op": "replace", "path": "/a", "value": 1}]},
    ):
        patched = api.patch(record["id"], body)
        assert patched.status_code == 200
        assert patched.json()["contentHash"] == record["contentHash"]
        assert patched.json()["updatedAt"] == record["updatedAt"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"baseHash": "0" * 64}, "STALE_BASE_HASH"),
        ({"operations": [{"op": "test", "path": "/a", "value": 2}]}, "PATCH_NOT_APPLICABLE"),
        ({"operations": [{"op": "remove", "path": "/missing"}]}, "PATCH_NOT_APPLICABLE"),
        ({"operations": [{"op": "add", "path": "/l/9", "value": 1}]}, "PATCH_NOT_APPLICABLE"),
        ({"keyOrder": {"/a": ["x"]}}, "PATCH_NOT_APPLICABLE"),
        (
            {
                "operations": [
                    {"op": "add", "path": "/n", "value": 1},
                    {"op": "remove", "path": "/x"},
                ]
            },
            "PATCH_NOT_APPLICABLE",
        ),
    ],
)
def test_409_leaves_content_and_hash_unchanged(api: Api, body: dict[str, Any], code: str) -> None:
    record = api.created(configuration={"a": 1, "l": []})
    response = api.patch(record["id"], body)
    assert response.status_code == 409
    assert response.json()["errorCode"] == code
    after = api.patch(record["id"], {}).json()
    assert after["configuration"] == {"a": 1, "l": []}
    assert after["contentHash"] == record["contentHash"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"operations": {"op": "add"}}, "INVALID_PATCH"),
        ({"operations": [{"op": "merge", "path": "/a"}]}, "INVALID_PATCH"),
        ({"operations": [{"op": "add", "path": "/a"}]}, "INVALID_PATCH"),
        ({"operations": [{"op": "add", "path": "a", "value": 1}]}, "INVALID_PATCH"),
        ({"keyOrder": ["a"]}, "INVALID_PATCH"),
        ({"baseHash": 5}, "INVALID_REQUEST"),
        ([], "INVALID_REQUEST"),
    ],
)
def test_malformed_patch_is_400(api: Api, body: Any, code: str) -> None:
    record = api.created(configuration={"a": 1})
    response = api.patch(record["id"], body)
    assert response.status_code == 400
    assert response.json()["errorCode"] == code


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "INVALID_REQUEST"),
        ({"name": ""}, "INVALID_REQUEST"),
        ({"name": 5}, "INVALID_REQUEST"),
        ({"name": "x" * 201}, "INVALID_REQUEST"),
        ({"name": "x", "privateKeys": "a"}, "INVALID_REQUEST"),
        ({"name": "x", "privateKeys": ["no-slash"]}, "INVALID_REQUEST"),
        ({"name": "x", "comments": {"a": 1}}, "INVALID_REQUEST"),
        ({"name": "x", "alias": 3}, "INVALID_REQUEST"),
        ({"name": "x", "description": []}, "INVALID_REQUEST"),
        ("name", "INVALID_REQUEST"),
    ],
)
def test_invalid_create_is_400(api: Api, body: Any, code: str) -> None:
    response = api.client.post(
        "/application/1/v2/configuration", json=body, headers=api.pat_headers()
    )
    assert response.status_code == 400
    assert response.json() == {"errorCode": code, "message": response.json()["message"]}


def test_unknown_and_foreign_ids_are_404(api: Api) -> None:
    record = api.created(configuration={})
    cases = [
        (api.patch(999_999, {}), "CONFIGURATION_NOT_FOUND"),
        (api.patch(record["id"], {}, environment_id=2), "CONFIGURATION_NOT_FOUND"),
        (api.patch(1, {}), "CONFIGURATION_NOT_FOUND"),  # the foreign project's configuration
        (api.patch(record["id"], {}, environment_id=3), "ENVIRONMENT_NOT_FOUND"),
        (api.patch(record["id"], {}, application_id=77), "PROJECT_NOT_FOUND"),
    ]
    for response, code in cases:
        assert response.status_code == 404, response.text
        assert response.json()["errorCode"] == code


@pytest.mark.parametrize("value", [None, "", "abc", "0", "-1", "1.5", "99999999999999999999999"])
def test_environment_id_header_must_be_a_positive_integer(api: Api, value: str | None) -> None:
    headers = api.pat_headers()
    if value is None:
        del headers["environment_id"]
    else:
        headers["environment_id"] = value
    response = api.client.post(
        "/application/1/v2/configuration", json={"name": "x"}, headers=headers
    )
    assert response.status_code == 400
    assert response.json()["errorCode"] == "INVALID_ENVIRONMENT_ID"


def test_private_keys_become_bootstrap_privacy_paths(api: Api) -> None:
    record = api.created(
        configuration={"economy": {"secretSeed": 1}},
        privateKeys=["/economy/secretSeed"],
        environment_id=2,
    )
    body = api.bootstrap(key="production", environment="production").json()
    entry = next(c for c in body["configurations"] if c["id"] == record["id"])
    assert entry["privacy"] == [["economy", "secretSeed"]]
    assert entry["configuration"] == {"economy": {"secretSeed": 1}}
