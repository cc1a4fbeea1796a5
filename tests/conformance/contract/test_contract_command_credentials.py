"""``conformance contract`` sends nothing, so a profile whose credentials come from environment
variables the shell has not set still gives its contract (a server written from the spec alone
met the usage error its help says it would not)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

PROFILE = """\
profile_version: 1
headers: {instance_id: x-instance}
credentials:
  pat: ${RCES_TEST_UNSET_PAT}
  sdk_keys: [{key: "${RCES_TEST_UNSET_KEY}", environments: [development]}]
project: {application_id: 1, environments: {development: 1}}
"""


def _contract(*arguments: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RCES_TEST_UNSET")}
    command = [sys.executable, "-m", "conformance.cli", "contract", *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_unset_credential_references_do_not_stop_the_contract(tmp_path: Path) -> None:
    profile = tmp_path / "target.yaml"
    profile.write_text(PROFILE, "utf-8")
    done = _contract("--profile", str(profile))
    assert done.returncode == 0, done.stderr
    parameter = yaml.safe_load(done.stdout)["components"]["parameters"]["ServerId"]
    assert parameter["name"] == "x-instance"


def test_an_unset_reference_outside_credentials_is_still_a_usage_error(tmp_path: Path) -> None:
    profile = tmp_path / "target.yaml"
    profile.write_text(
        PROFILE.replace("{instance_id: x-instance}", '{instance_id: "${RCES_TEST_UNSET_NAME}"}'),
        "utf-8",
    )
    done = _contract("--profile", str(profile))
    assert done.returncode == 2 and "RCES_TEST_UNSET_NAME" in done.stderr
