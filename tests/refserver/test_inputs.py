"""refserver.inputs, refserver.errors and refserver.provisioning: small pieces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refserver import experiment_store, schema
from refserver.errors import ApiError, error_response
from refserver.inputs import check_encodable, loads, parse_id
from refserver.provisioning import provision
from refserver.store import Store


@pytest.mark.parametrize(
    ("raw", "value"),
    [("1", 1), ("42", 42), ("9223372036854775807", 2**63 - 1), ("0", None), ("-1", None),
     ("9223372036854775808", None), ("1.0", None), ("", None), (None, None), ("\u0661", None)],
)  # fmt: skip
def test_parse_id(raw: str | None, value: int | None) -> None:
    assert parse_id(raw) == value


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", "-Infinity", "{", "9" * 5000])
def test_loads_is_strict(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


def test_lone_surrogates_are_not_encodable() -> None:
    with pytest.raises(ValueError):
        check_encodable(loads('"\\ud800"'))
    check_encodable(loads('"\\ud83d\\ude00"'))  # a proper pair is fine


def test_error_body_shape() -> None:
    response = error_response(409, "STALE_BASE_HASH", "stale", {"x-a": "1"})
    assert response.status_code == 409
    assert json.loads(bytes(response.body)) == {"errorCode": "STALE_BASE_HASH", "message": "stale"}
    assert response.headers["content-type"] == "application/json"
    error = ApiError(429, "RATE_LIMITED", "slow down", {"retry-after": "2"})
    assert (error.status, error.code, error.headers) == (429, "RATE_LIMITED", {"retry-after": "2"})


def test_provisioning_runs_once_with_the_documented_ids(tmp_path: Path) -> None:
    store = Store(tmp_path / "p.db")
    store.apply_schema(schema.DDL)
    store.apply_schema(experiment_store.DDL)
    assert provision(store) is True
    assert provision(store) is False
    with store.read() as conn:
        environments = conn.execute("SELECT id, project_id, alias FROM environments").fetchall()
        assert [tuple(r) for r in environments] == [
            (1, 1, "development"),
            (2, 1, "production"),
            (3, 2, "development"),
        ]
        roles = conn.execute("SELECT owner_id, project_id, role FROM memberships").fetchall()
        assert {tuple(r) for r in roles} == {(1, 1, "owner"), (2, 2, "owner"), (3, 1, "viewer")}
        keys = conn.execute("SELECT key, label FROM sdk_keys").fetchall()
        prefixes = {r["label"]: r["key"].split("_")[0] for r in keys}
        assert prefixes == {"development": "svc", "production": "svc", "all": "svc",
                            "legacy": "sdk", "foreign": "svc"}  # fmt: skip
        assert conn.execute("SELECT COUNT(*) FROM configurations").fetchone()[0] == 1
    store.close()
