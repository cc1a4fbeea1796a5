"""refserver.target_profile: the written profile is valid, private, and matches the flags."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from tests.refserver.conftest import ServerFactory

SCHEMA = Path(__file__).parents[2] / "conformance" / "profile" / "profile.schema.json"


def load(path: Path) -> dict[str, Any]:
    profile: dict[str, Any] = yaml.safe_load(path.read_text())
    return profile


def test_profile_is_valid_private_and_names_working_credentials(make_server: ServerFactory) -> None:
    server = make_server(rate_burst=7, rate_refill=3.5, rate_scope="instance", shed_threshold=300)
    path = server.profile_path
    assert path.name.endswith(".db.profile.yaml")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    profile = load(path)
    if SCHEMA.exists():
        jsonschema.validate(profile, json.loads(SCHEMA.read_text()))
    assert profile["rate_limit"] == {"burst": 7, "refill_per_second": 3.5, "scope": "instance"}
    assert profile["load_shedding"]["provoke"] == "burst"
    assert profile["load_shedding"]["burst_requests"] > 300
    assert all(profile["capabilities"].values())
    assert profile["project"] == {
        "application_id": 1,
        "environments": {"development": 1, "production": 2},
        "foreign_application_id": 2,
        "foreign_environment_id": 3,
    }
    creds = profile["credentials"]
    assert creds["pat"].startswith("svc_pat_")
    assert creds["legacy_sdk_key"]["key"].startswith("sdk_")
    scopes = [k["environments"] for k in creds["sdk_keys"]]
    assert scopes == [["development"], ["production"], ["development", "production"]]


def test_forced_shedding_and_explicit_path(make_server: ServerFactory, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.yaml"
    server = make_server(force_shedding=True, profile_path=target)
    assert server.profile_path == target
    assert load(target)["load_shedding"]["provoke"] == "forced"


def test_secrets_differ_per_database(make_server: ServerFactory) -> None:
    first = load(make_server().profile_path)["credentials"]
    second = load(make_server().profile_path)["credentials"]
    assert first["pat"] != second["pat"]
    assert first["sdk_keys"][0]["key"] != second["sdk_keys"][0]["key"]
