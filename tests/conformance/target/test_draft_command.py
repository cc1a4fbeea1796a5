"""``conformance profile draft`` as a user runs it: a draft profile of the reference server,
secrets named only as variables, that a run then takes as any profile; a missing variable is a
usage error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from refserver.runner import RunningServer, start_server
from tests.support.conformance_cli import run_conformance
from tests.support.report_outcomes import requirement_outcomes

CHECKED = "ERR-VALIDATION-STATUS,CFG-CREATE-RECORD-SHAPE,SDK-STATUS-ETAG-EQUALS-HASH"


@pytest.fixture
def reference(tmp_path: Path) -> Iterator[tuple[RunningServer, dict[str, Any]]]:
    written = tmp_path / "reference.yaml"
    server = start_server(tmp_path / "ref.db", profile_path=written)
    try:
        yield server, yaml.safe_load(written.read_text(encoding="utf-8"))
    finally:
        server.stop()


def _secrets(data: dict[str, Any]) -> dict[str, str]:
    creds = data["credentials"]
    keys = {f"DRAFT_KEY_{n}": k["key"] for n, k in enumerate(creds["sdk_keys"], 1)}
    return {"DRAFT_PAT": creds["pat"], **keys}


def test_a_draft_is_written_with_variables_and_a_run_takes_it(
    tmp_path: Path, reference: tuple[RunningServer, dict[str, Any]]
) -> None:
    server, data = reference
    env = _secrets(data)
    out = tmp_path / "draft.yaml"
    key_flags = [arg for name in env if name != "DRAFT_PAT" for arg in ("--sdk-key-env", name)]
    done = run_conformance(
        "profile",
        "draft",
        "--base-url",
        server.base_url,
        "--pat-env",
        "DRAFT_PAT",
        *key_flags,
        "--output",
        str(out),
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert not any(value in text + done.stdout + done.stderr for value in env.values())
    assert "pat: ${DRAFT_PAT}" in text and "confirm each observed value" in done.stderr
    run = run_conformance(
        "run",
        "--base-url",
        server.base_url,
        "--profile",
        str(out),
        "--requirements",
        CHECKED,
        "--report-dir",
        str(tmp_path / "reports"),
        "--workers",
        "0",
        timeout=180,
        env=env,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    report = json.loads((tmp_path / "reports" / "conformance.json").read_text(encoding="utf-8"))
    assert requirement_outcomes(report) == dict.fromkeys(CHECKED.split(","), "pass")


def test_a_variable_that_is_not_set_is_a_usage_error(tmp_path: Path) -> None:
    done = run_conformance(
        "profile",
        "draft",
        "--base-url",
        "http://127.0.0.1:9",
        "--pat-env",
        "DRAFT_PAT_NOT_SET_ANYWHERE",
        "--sdk-key",
        "svc_pk_x",
        timeout=60,
    )
    assert done.returncode == 2
    assert "DRAFT_PAT_NOT_SET_ANYWHERE: the variable is not set" in done.stderr
