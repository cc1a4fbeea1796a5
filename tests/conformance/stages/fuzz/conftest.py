"""What the fuzz stage's unit tests share: a profile with known credentials and project, the
smoke tier's schema, and ways to build an answer and run one of the suite's own checks on it."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
import schemathesis

from conformance.profile.building import build
from conformance.profile.defaults import DEFAULTS
from conformance.registry.fuzz_budget import tier
from conformance.stages.fuzz.response_checks import custom_checks
from conformance.stages.fuzz.schema import build_schema

PAT = "svc_pat_unitTestToken"
KEYS = {"dev": "svc_pk_dev", "prod": "svc_pk_prod", "all": "svc_pk_all"}


@pytest.fixture(scope="module")
def profile() -> Any:
    data = json.loads(json.dumps(DEFAULTS))
    data["credentials"] = {
        "pat": PAT,
        "sdk_keys": [
            {"key": KEYS["dev"], "environments": ["development"]},
            {"key": KEYS["prod"], "environments": ["production"]},
            {"key": KEYS["all"], "environments": ["development", "production"]},
        ],
    }
    data["project"] = {"application_id": 7, "environments": {"development": 11, "production": 12}}
    return build(data)


@pytest.fixture(scope="module")
def schema() -> Any:
    return build_schema(tier("smoke"), 1)


def operation(schema: Any, method: str, path: str) -> Any:
    return schema[path][method]


def response(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Any:
    request = requests.Request("GET", "http://127.0.0.1:1/").prepare()
    lowered = {k.lower(): [v] for k, v in (headers or {}).items()}
    return schemathesis.Response(status, lowered, body, request, 0.01, True)


def run_check(name: str, profile: Any, case: Any, reply: Any) -> Any:
    check = next(c for c in custom_checks(profile.errors) if c.__name__ == name)
    return check(None, reply, case)  # type: ignore[arg-type]


def status_case(schema: Any) -> Any:
    return operation(schema, "GET", "/sdk/v2/status").Case()
