"""Regression tests for what the fuzz stage found on the reference server and its contract.

Each open finding is ``xfail(strict=True)``: it flips to a failure ("XPASS strict") the day the
server or the contract is fixed, so the marker is removed with the fix. Fixed findings stay as
plain regression tests: `null` for an optional field of the configuration bodies (accepted as
"absent" by the server) is allowed by the contract too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conformance.contract.document import load_contract


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


SCHEMAS = load_contract()["components"]["schemas"]
# (operation, body schema): the configuration bodies, whose optional fields take null as absent.
BODIES = (("create", "CreateConfigurationBody"), ("patch", "PatchConfigurationBody"))
OPTIONAL_FIELDS = [
    (operation, field)
    for operation, name in BODIES
    for field in sorted(set(SCHEMAS[name]["properties"]) - set(SCHEMAS[name].get("required", ())))
]


def _allows_null(schema: dict[str, Any]) -> bool:
    """Whether a property schema admits JSON null (no ``type`` at all admits anything)."""
    if "type" not in schema:
        return True
    types = schema["type"]
    return "null" in (types if isinstance(types, list) else [types])


@pytest.mark.parametrize(("operation", "field"), OPTIONAL_FIELDS)
def test_a_null_optional_field_agrees_with_the_contract(
    reference: Any, operation: str, field: str
) -> None:
    """Nightly findings: ``alias``, then ``privateKeys`` sent as null to create.

    A probe of every body then found ``comments`` (create) and ``baseHash``/``keyOrder`` (patch)
    accepted as null and ``operations: null`` refused. The rule now: null counts as absent in
    both bodies, and the contract admits it. A mismatch either way round is a finding.
    """
    base, headers = _management(reference)
    name = f"cf-finding-null-{field}"
    before = None  # the record a patch starts from
    if operation == "create":
        reply = httpx.post(
            f"{base}/configuration", headers=headers, json={"name": name, field: None}
        )
        accepted = 201
    else:
        created = httpx.post(f"{base}/configuration", headers=headers, json={"name": name})
        assert created.status_code == 201, created.text
        before = created.json()
        reply = httpx.patch(
            f"{base}/configuration/{before['id']}", headers=headers, json={field: None}
        )
        accepted = 200
    schema = SCHEMAS[dict(BODIES)[operation]]["properties"][field]
    allowed = _allows_null(schema)
    assert reply.status_code in (accepted, 400), reply.text
    assert (reply.status_code == accepted) == allowed, (
        f"{operation}: server answered {reply.status_code} to {field}: null, "
        f"while the contract {'admits' if allowed else 'forbids'} null"
    )
    if before is not None and allowed:
        assert reply.json()["contentHash"] == before["contentHash"], "not a no-op"
    default = schema.get("default")
    if operation == "create" and allowed and default is not None:
        assert reply.json()[field] == default, f"{field}: null is not treated as absent"
