"""End to end: the fuzz stage against the real reference server (uvicorn, SQLite, real HTTP).

The smoke tier runs in the default test run; the pr and nightly tiers are ``long``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from stage_runner import StageResult, run_stage, serve

HIGH_RATE: dict[str, Any] = {"rate_burst": 100000, "rate_refill": 100000.0}


def assert_clean(result: StageResult) -> None:
    assert result.report, result.output
    tests = result.fuzz_tests()
    assert tests, result.output
    failed = [(t["test_id"], t["message"]) for t in tests if t["outcome"] == "fail"]
    assert failed == [], failed
    assert result.returncode == 0, result.output
    fuzz = next(s for s in result.report["stages"] if s["name"] == "fuzz")
    assert fuzz["tests"] == len(tests)


def test_smoke_tier_is_clean_against_the_reference_server(tmp_path: Path) -> None:
    with serve(tmp_path) as server:
        result = run_stage(server, tmp_path / "reports", tier="smoke")
    assert_clean(result)
    # Every operation was fuzzed with valid credentials and with missing/wrong ones.
    ids = [t["test_id"] for t in result.fuzz_tests()]
    assert sum("test_fuzz[" in i for i in ids) == 19
    assert sum("test_fuzz_credentials[" in i for i in ids) == 19
    assert any("test_fuzz_stateful" in i for i in ids)
    assert "fuzz: tier smoke, seed 20261122" in result.output
    # The experiments the stage created were terminated at the end.
    with serve(tmp_path) as server:
        import httpx
        import yaml

        profile = yaml.safe_load(Path(server.profile_path).read_text("utf-8"))
        reply = httpx.get(
            f"{server.base_url}/application/{profile['project']['application_id']}/v2/experiments",
            headers={
                "authorization": f"Bearer {profile['credentials']['pat']}",
                "environment_id": str(profile["project"]["environments"]["development"]),
            },
            params={"limit": "100"},
        )
    items = reply.json()["items"]
    # Credentials are redacted everywhere in the report.
    text = (tmp_path / "reports" / "conformance.json").read_text("utf-8")
    secrets = [
        profile["credentials"]["pat"],
        *(k["key"] for k in profile["credentials"]["sdk_keys"]),
    ]
    assert not [s for s in secrets if s in text]
    fuzzed = [i for i in items if str(i["name"]).startswith("cf-")]
    assert fuzzed and all(i["status"] == "terminated" for i in fuzzed)


@pytest.mark.long  # minutes each: the long tier (pytest -m long)
@pytest.mark.parametrize("tier", ["pr", "nightly"])
def test_longer_tiers_are_clean(tmp_path: Path, tier: str) -> None:
    with serve(tmp_path, **HIGH_RATE) as server:
        result = run_stage(server, tmp_path / "reports", tier=tier, timeout=4000)
    assert_clean(result)
