"""``conformance run`` in a child process against a served target, as a user would run it, and
the report it wrote (the self-tests that certify a whole target share this one way)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.support.conformance_cli import run_conformance
from tests.support.report_outcomes import written_report

RUN_TIMEOUT_SECONDS = 600


def certify(
    base_url: str,
    profile: Path,
    report_dir: Path,
    arguments: Sequence[str] = (),
    cwd: Path | None = None,
) -> tuple[dict[str, Any], str]:
    """Run the suite (``arguments``: a stage, a tier, ``--requirements``...) and return its
    ``conformance.json`` (empty when none was written) and its output. Only the JSON report is
    written unless ``arguments`` name ``--formats``: the other formats are read by no caller."""
    formats = () if "--formats" in arguments else ("--formats", "json")
    done = run_conformance(
        "run",
        "--base-url", base_url,
        "--profile", str(profile),
        "--report-dir", str(report_dir),
        *formats,
        *arguments,
        "--quiet",
        timeout=RUN_TIMEOUT_SECONDS,
        cwd=cwd,
    )  # fmt: skip
    return written_report(report_dir), done.stdout + done.stderr
