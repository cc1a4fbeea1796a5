"""Regression tests for what the fuzz stage found on the reference server and its contract.

Each open finding is ``xfail(strict=True)``: it flips to a failure ("XPASS strict") the day the
server or the contract is fixed, so the marker is removed with the fix. Fixed findings stay as
plain regression tests: `null` for an optional create field (`alias`, `description`,
`privateKeys`, `comments`; accepted as "absent" by the server) is allowed by the contract too.
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


CREATE_BODY = load_contract()["components"]["schemas"]["CreateConfigurationBody"]
OPTIONAL_CREATE_FIELDS = sorted(set(CREATE_BODY["properties"]) - set(CREATE_BODY["required"]))


def _allows_null(schema: dict[str, Any]) -> bool:
    """Whether a property schema admits JSON null (no ``type`` at all admits anything)."""
    if "type" not in schema:
        return True
    types = schema["type"]
    return "null" in (types if isinstance(types, list) else [types])


@pytest.mark.parametrize("field", OPTIONAL_CREATE_FIELDS)
def test_create_configuration_with_a_null_optional_field_agrees_with_the_contract(
    reference: Any, field: str
) -> None:
    """Nightly findings: ``alias``, then ``privateKeys`` (and ``comments``) sent as null.

    The server takes null as "absent"; the contract must then admit null, or the server must
    refuse it with 400. Either way round, a mismatch is a finding.
    """
    base, headers = _management(reference)
    reply = httpx.post(
        f"{base}/configuration",
        headers=headers,
        json={"name": f"cf-finding-null-{field}", field: None},
    )
    allowed = _allows_null(CREATE_BODY["properties"][field])
    assert reply.status_code in (201, 400), reply.text
    assert (reply.status_code == 201) == allowed, (
        f"server answered {reply.status_code} to {field}: null, "
        f"while the contract {'admits' if allowed else 'forbids'} null"
    )
    default = CREATE_BODY["properties"][field].get("default")
    if allowed and default is not None:
        assert reply.json()[field] == default, f"{field}: null is not treated as absent"
