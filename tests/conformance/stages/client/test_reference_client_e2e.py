"""End to end over real sockets: ``conformance client`` certifies the reference client green,
every client requirement passes with its subject, the HTML draws the timing charts, and the
run's SDK key appears in no report file; a client that exits at once fails, never passes."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from conformance.cli import main
from conformance.stages.client.scenarios import requirement_ids


def test_conformance_client_certifies_the_reference_client(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    assert main(["client", "--report-dir", str(reports), "--quiet"]) == 0
    data = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    assert data["verdict"] == "conformant"
    outcomes = {r["id"]: (r["outcome"], r["subject"]) for r in data["requirements"]}
    assert outcomes == dict.fromkeys(requirement_ids(), ("pass", "client"))
    stage = next(s for s in data["stages"] if s["name"] == "client")
    assert set(stage["details"]["scenarios"]) >= {"hint", "backoff-5xx", "last-hash"}
    assert stage["details"]["scenarios"]["hint"]["intervals"]
    html = (reports / "conformance.html").read_text(encoding="utf-8")
    assert html.count("<svg") >= 4 and "waits kept against waits asked" in html
    for path in reports.rglob("*"):
        if path.is_file():
            assert "svc_pk_" not in path.read_text(encoding="utf-8", errors="replace"), path


def test_a_client_that_exits_at_once_fails_with_its_output(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-c", "print('booting'); raise SystemExit(0)"])
    reports = tmp_path / "reports"
    code = main(
        [
            "client",
            "--command",
            command,
            "--report-dir",
            str(reports),
            "--quiet",
            "--requirements",
            "POLL-CLIENT-RETRY-AFTER",
        ]
    )
    assert code == 1
    data = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    (requirement,) = data["requirements"]
    assert requirement["outcome"] == "fail"
    assert "booting" in requirement["evidence"][0]["received"]


def test_a_command_that_cannot_run_is_a_usage_error(tmp_path: Path) -> None:
    code = main(["client", "--command", "/no/such/client", "--report-dir", str(tmp_path)])
    assert code == 2
