"""Authorization matrix over a real socket: PAT and SDK key answers, as a table."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.refserver.conftest import Api

CREATE = "/application/{app}/v2/configuration"

# description, authorization header (from the Api), application id, expected status, errorCode
PAT_CASES: list[tuple[str, Callable[[Api], str | None], int, int, str]] = [
    ("no authorization header", lambda a: None, 1, 401, "UNAUTHENTICATED"),
    ("no Bearer scheme", lambda a: a.pat, 1, 401, "UNAUTHENTICATED"),
    ("wrong prefix", lambda a: "Bearer svc_pk_abc", 1, 401, "UNAUTHENTICATED"),
    ("empty token", lambda a: "Bearer svc_pat_", 1, 401, "UNAUTHENTICATED"),
    ("lowercase scheme", lambda a: "bearer " + a.pat, 1, 401, "UNAUTHENTICATED"),
    ("unknown token", lambda a: "Bearer svc_pat_doesnotexist", 1, 401, "INVALID_TOKEN"),
    ("unknown project", lambda a: "Bearer " + a.pat, 42, 404, "PROJECT_NOT_FOUND"),
    ("non-numeric project", lambda a: "Bearer " + a.pat, 0, 404, "PROJECT_NOT_FOUND"),
    ("owner of another project", lambda a: "Bearer " + a.foreign_pat, 1, 403, "PERMISSION_DENIED"),
    ("demo owner on the foreign project", lambda a: "Bearer " + a.pat, 2, 403, "PERMISSION_DENIED"),
    ("viewer writing", lambda a: "Bearer " + a.viewer_pat, 1, 403, "PERMISSION_DENIED"),
]


@pytest.mark.parametrize(
    ("description", "header", "app", "status", "code"), PAT_CASES, ids=[c[0] for c in PAT_CASES]
)
def test_pat_matrix(
    api: Api,
    description: str,
    header: Callable[[Api], str | None],
    app: int,
    status: int,
    code: str,
) -> None:
    headers = {"environment_id": "1"}
    value = header(api)
    if value is not None:
        headers["authorization"] = value
    response = api.client.post(CREATE.format(app=app or "abc"), json={"name": "x"}, headers=headers)
    assert response.status_code == status, description
    assert response.json()["errorCode"] == code, description


def test_foreign_owner_writes_own_project(api: Api) -> None:
    response = api.client.post(
        CREATE.format(app=2),
        json={"name": "mine"},
        headers={"authorization": "Bearer " + api.foreign_pat, "environment_id": "3"},
    )
    assert response.status_code == 201


# description, key label or raw header, environment header, expected status, errorCode
SDK_CASES: list[tuple[str, str | None, str | None, int, str | None]] = [
    ("no key", None, None, 401, "UNAUTHENTICATED"),
    ("bearer scheme is not a raw key", "Bearer x", None, 401, "INVALID_KEY"),
    ("unknown svc_pk_ key", "svc_pk_unknown", None, 401, "INVALID_KEY"),
    ("unknown sdk_ key", "sdk_unknown", None, 401, "INVALID_KEY"),
    ("development key, default environment", "development", None, 200, None),
    ("development key, studio", "development", "studio", 200, None),
    ("development key, production", "development", "production", 403, "FORBIDDEN"),
    ("production key, default environment", "production", None, 403, "FORBIDDEN"),
    ("production key, production", "production", "production", 200, None),
    ("all key, production", "all", "production", 200, None),
    ("legacy sdk_ key", "legacy", "production", 200, None),
    ("foreign key, production", "foreign", "production", 403, "FORBIDDEN"),
]


@pytest.mark.parametrize(
    ("description", "key", "environment", "status", "code"),
    SDK_CASES,
    ids=[c[0] for c in SDK_CASES],
)
@pytest.mark.parametrize("endpoint", ["/sdk/v2/status", "/sdk/v2/bootstrap"])
def test_sdk_key_matrix(
    api: Api,
    endpoint: str,
    description: str,
    key: str | None,
    environment: str | None,
    status: int,
    code: str | None,
) -> None:
    headers = {}
    if key is not None:
        headers["authorization"] = api.keys.get(key, key)
    if environment is not None:
        headers["environment"] = environment
    response = api.client.get(endpoint, headers=headers)
    assert response.status_code == status, description
    if code is not None:
        assert response.json()["errorCode"] == code, description


def test_foreign_key_sees_only_its_project(api: Api) -> None:
    api.created(name="demo only")
    names = [c["name"] for c in api.status(key="foreign").json()["configurations"]]
    assert "foreign settings" in names and "demo only" not in names


def test_viewer_can_authenticate_for_reads(api: Api) -> None:
    from starlette.requests import Request

    from refserver.auth import authorize_pat

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [(b"authorization", f"Bearer {api.viewer_pat}".encode())],
    }
    principal = authorize_pat(Request(scope), api.server.state.store, 1, write=False)
    assert principal.role == "viewer" and principal.owner_name == "viewer"
