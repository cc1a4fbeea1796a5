"""The load stage on ``variants.fuzzload.detail_errors`` (error bodies ``{"detail": ...}``, no
code field), served by the reference (real uvicorn, SQLite, Locust, HTTP): under a profile that
leaves the error fields at their defaults it is interface-conformant, the fields listed as a
difference; under one that declares the production conventions it fails ERR-BODY-SHAPE."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from faulty.asgi import FaultyApp

from tests.support.conformance_cli import run_conformance
from tests.support.report_outcomes import written_outcomes
from variants.fuzzload import detail_errors

pytestmark = [pytest.mark.long, pytest.mark.timing]  # judged by the clock: one at a time
PORT = 5731  # the load stage's Locust master port for these runs


def _load_run(workdir: Path, conventions: bool) -> tuple[dict[str, str], dict[str, Any], str]:
    from refserver.runner import start_server

    workdir.mkdir(parents=True, exist_ok=True)
    db, profile = workdir / "refserver.db", workdir / "profile.yaml"
    server = start_server(db, profile_path=profile, wrap=lambda app: FaultyApp(app, detail_errors))
    report = workdir / "report"
    try:
        data = yaml.safe_load(profile.read_text("utf-8"))
        if not conventions:  # the error fields left at their defaults: conventions
            data.pop("conventions", None)
            for key in ("code_field", "message_field"):
                data.get("errors", {}).pop(key, None)
        profile.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
        done = run_conformance(
            "run", "--stage", "load",
            "--base-url", str(server.base_url), "--profile", str(profile),
            "--report-dir", str(report), "--formats", "json", "--workers", "0", "--quiet",
            "--load-workers", "1", "--load-port", str(PORT),
            timeout=300, cwd=workdir,
        )  # fmt: skip
    finally:
        server.stop()
    written = report / "conformance.json"
    full = yaml.safe_load(written.read_text("utf-8")) if written.is_file() else {}
    return written_outcomes(report), full, done.stdout + done.stderr


def test_error_bodies_without_the_undeclared_code_field_differ_under_load(tmp_path: Path) -> None:
    outcomes, report, output = _load_run(tmp_path / "undeclared", conventions=False)
    assert outcomes, output[-3000:]
    assert outcomes.get("ERR-BODY-SHAPE") == "pass", (outcomes, output[-3000:])
    assert "fail" not in outcomes.values(), outcomes
    keys = {d["key"] for d in report.get("differences", [])}
    assert "errors.code_field" in keys, keys
    # Declared (conventions: production), the same bodies break the declared shape.
    outcomes, _report, output = _load_run(tmp_path / "declared", conventions=True)
    failed = {rid for rid, outcome in outcomes.items() if outcome == "fail"}
    assert failed == {"ERR-BODY-SHAPE"}, (outcomes, output[-3000:])
