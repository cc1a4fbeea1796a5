"""Regression tests for what the fuzz stage found on the reference server and its contract.

Each open finding is ``xfail(strict=True)``: it flips to a failure ("XPASS strict") the day the
server or the contract is fixed, so the marker is removed with the fix. Fixed findings stay as
plain regression tests: `alias: null` (accepted as "absent" by the server) is now allowed by the
contract too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conformance.contract import load_contract


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from refserver.runner import start_server

    server = start_server(tmp_path_factory.mktemp("findings") / "f.db")
    try:
        yield server
    finally:
        server.stop()


def _management(server: Any) -> tuple[str, dict[str, str]]:
    profile = yaml.safe_load(Path(server.profile_path).read_text("utf-8"))
    app = profile["project"]["application_id"]
    headers = {
        "authorization": f"Bearer {profile['credentials']['pat']}",
        "environment_id": str(profile["project"]["environments"]["development"]),
    }
    return f"{server.base_url}/application/{app}/v2", headers


def test_create_configuration_with_null_alias_agrees_with_the_contract(reference: Any) -> None:
    base, headers = _management(reference)
    reply = httpx.post(
        f"{base}/configuration",
        headers=headers,
        json={"name": "cf-finding-null-alias", "alias": None},
    )
    alias = load_contract()["components"]["schemas"]["CreateConfigurationBody"]["properties"][
        "alias"
    ]
    types = alias.get("type")
    contract_allows_null = "null" in (types if isinstance(types, list) else [types])
    assert reply.status_code == 400 or contract_allows_null, (
        f"server answered {reply.status_code} to alias: null; contract alias type {types!r}"
    )
