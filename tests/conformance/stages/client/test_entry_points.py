"""The client stage's other two doors: plain pytest on the package with ``--client-command``, and
``conformance run --stage client`` (options declared by the stage); both judge and report."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from conformance.cli import main

EXITS_AT_ONCE = shlex.join([sys.executable, "-c", "print('booting')"])


def test_pytest_on_the_package_takes_the_client_command(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            "conformance.stages.client",
            "--client-command",
            EXITS_AT_ONCE,
            "--requirements",
            "POLL-CLIENT-HONOUR-HINT",
            "--report-dir",
            str(reports),
            "-p",
            "no:cacheprovider",
            "-q",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    assert [(r["id"], r["outcome"]) for r in data["requirements"]] == [
        ("POLL-CLIENT-HONOUR-HINT", "fail")
    ]


def test_conformance_run_stage_client_certifies_the_reference_client(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    code = main(
        [
            "run",
            "--stage",
            "client",
            "--requirements",
            "POLL-CLIENT-HONOUR-HINT",
            "--report-dir",
            str(reports),
            "--quiet",
            "--workers",
            "0",
        ]
    )
    assert code == 0
    data = json.loads((reports / "conformance.json").read_text(encoding="utf-8"))
    assert [(r["id"], r["outcome"], r["subject"]) for r in data["requirements"]] == [
        ("POLL-CLIENT-HONOUR-HINT", "pass", "client")
    ]
