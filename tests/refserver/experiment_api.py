"""The experiment endpoints as the end-to-end tests call them: a provisioned server's credentials
(``ExperimentTarget``), request headers, and calls that must succeed (each asserts its status)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx

APP = "/application/1/v2/experiments"


@dataclass
class ExperimentTarget:
    base_url: str
    pat: str
    sdk_key: str
    viewer_pat: str

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=10.0)


def mgmt(
    target: ExperimentTarget, environment_id: int = 1, token: str | None = None
) -> dict[str, str]:
    return {"Authorization": f"Bearer {token or target.pat}", "environment_id": str(environment_id)}


def sdk(target: ExperimentTarget, **identity: str) -> dict[str, str]:
    return {"authorization": target.sdk_key, **identity}


def create_configuration(http: httpx.Client, target: ExperimentTarget, document: Any) -> int:
    response = http.post(
        "/application/1/v2/configuration",
        headers=mgmt(target),
        json={"name": f"config {time.monotonic_ns()}", "configuration": document},
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def create_experiment(
    http: httpx.Client, target: ExperimentTarget, **fields: Any
) -> dict[str, Any]:
    response = http.post(APP, headers=mgmt(target), json=fields)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def status(http: httpx.Client, target: ExperimentTarget) -> dict[str, Any]:
    response = http.get("/sdk/v2/status", headers=sdk(target))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def bootstrap(
    http: httpx.Client, target: ExperimentTarget, unit: str, context: dict[str, Any] | None = None
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
    http: httpx.Client, target: ExperimentTarget, path: str, limit: int, **extra: str
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
