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
            "POLL-CLIENT-HONOUR-HINT",
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


def test_an_undeclared_bare_hash_is_conformant_with_a_drop_in_difference(tmp_path: Path) -> None:
    """Issue 37: a client that sends the bare hash in If-None-Match passes at the interface
    level; the report lists the difference with the key that would declare it, and a profile
    that declares the quoted form makes the same client fail."""
    runner = Path(__file__).resolve().parents[3] / "faulty" / "clients" / "run.py"
    command = shlex.join([sys.executable, str(runner), "bare-if-none-match-undeclared"])
    only = ["--requirements", "POLL-CLIENT-SEND-LAST-HASH"]
    reports = tmp_path / "reports"
    assert (
        main(["client", "--command", command, "--report-dir", str(reports), "--quiet", *only]) == 0
    )
    data = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    assert data["levels"] == {"interface": "conformant", "drop_in": "not-conformant"}
    assert {d["key"] for d in data["differences"]} == {"client.if_none_match_form"}
    profile = tmp_path / "client.yaml"
    profile.write_text("client:\n  if_none_match_form: quoted\n", encoding="utf-8")
    declared = tmp_path / "declared"
    argv = ["client", "--command", command, "--profile", str(profile), "--report-dir"]
    assert main([*argv, str(declared), "--quiet", *only]) != 0


def test_a_client_profile_baseline_marks_a_known_failure(tmp_path: Path) -> None:
    """A ``baseline`` entry of a client profile counts as in server runs: the failure it names
    is a known failure (with its reason), not ignored; without the entry it fails."""
    runner = Path(__file__).resolve().parents[3] / "faulty" / "clients" / "run.py"
    command = shlex.join([sys.executable, str(runner), "bearer-authorization"])
    rid = "SDK-CLIENT-AUTHORIZATION"
    profile = tmp_path / "client.yaml"
    profile.write_text(
        f"baseline:\n  - {{requirement: {rid}, reason: our SDK adds a scheme word}}\n",
        encoding="utf-8",
    )
    reports = tmp_path / "reports"
    argv = ["client", "--command", command, "--requirements", rid, "--quiet"]
    main([*argv, "--profile", str(profile), "--report-dir", str(reports)])
    data = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    assert {r["id"]: r["outcome"] for r in data["requirements"]} == {rid: "known-failure"}
    plain = tmp_path / "plain"
    assert main([*argv, "--report-dir", str(plain)]) != 0
    data = json.loads((plain / "conformance.json").read_text(encoding="utf-8"))
    assert {r["id"]: r["outcome"] for r in data["requirements"]} == {rid: "fail"}
