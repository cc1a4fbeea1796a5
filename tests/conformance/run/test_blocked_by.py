"""One cause, one finding, over real sockets: a server that refuses every configuration create
with a 400 fails the create requirement once; the scenarios that needed a configuration are not
measurable, each blocked by that one refused step, which the report's headline and the terminal
name once; the verdict is never green."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from refserver.runner import start_server
from tests.support.conformance_cli import run_conformance

TESTS = str(Path(__file__).resolve().parents[2])
if TESTS not in sys.path:  # tests/faulty holds the ASGI plumbing of the one-defect servers
    sys.path.append(TESTS)

from faulty.asgi import FaultyApp, Request, Response, error_response  # noqa: E402
from faulty.recipes import CREATE, edit_response  # noqa: E402

JUDGES_CREATE = "CFG-CREATE-MINIMAL-BODY"
NEED_A_CONFIGURATION = ("CFG-RECORD-TIMESTAMPS", "SDK-STATUS-CONFIG-HASH-MOVES")
CAUSE = "the target did not let the suite create the configuration this scenario needs (HTTP 400)"


def _refused(request: Request, response: Response) -> Response:
    return error_response(400, "INVALID_REQUEST")


def test_a_refused_step_is_one_cause(tmp_path: Path) -> None:
    written = tmp_path / "profile.yaml"
    server = start_server(
        tmp_path / "refserver.db",
        profile_path=written,
        wrap=lambda app: FaultyApp(app, edit_response(CREATE, _refused)),  # type: ignore[arg-type]
    )
    try:
        done = run_conformance(
            "run",
            "--base-url",
            server.base_url,
            "--profile",
            str(written),
            "--requirements",
            ",".join((JUDGES_CREATE, *NEED_A_CONFIGURATION)),
            "--workers",
            "0",
            "--report-dir",
            str(tmp_path / "report"),
            timeout=300,
        )
    finally:
        server.stop()
    report = json.loads((tmp_path / "report" / "conformance.json").read_text(encoding="utf-8"))
    outcomes = {r["id"]: r for r in report["requirements"]}
    assert outcomes[JUDGES_CREATE]["outcome"] == "fail"  # judged once, on its own requirement
    for blocked in NEED_A_CONFIGURATION:
        assert outcomes[blocked]["outcome"] == "not-measurable", outcomes[blocked]
        assert CAUSE in outcomes[blocked]["note"]
    assert done.returncode == 1  # never green
    line = f"2 requirements not measured, blocked by 1 refused step: {CAUSE} (2)."
    assert done.stdout.count(line) == 1, done.stdout[-3000:]
    markdown = (tmp_path / "report" / "conformance.md").read_text(encoding="utf-8")
    assert f"1 requirement failed: {JUDGES_CREATE}. {line}" in markdown
