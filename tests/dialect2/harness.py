"""Certify the second dialect (or one of its variants) as a user would: serve it, write its
profile, run ``conformance run`` in a child process for one stage, and read ``conformance.json``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from dialect.harness import Certified
from faulty.asgi import Handler

from dialect2.profile import write
from dialect2.server import serve
from tests.support import suite_run


def differences(report: dict[str, Any]) -> set[str]:
    """The keys of the drop-in differences a report lists."""
    return {str(d.get("key")) for d in report.get("differences", [])}


def certify(
    workdir: Path,
    stage: tuple[str, ...] = (),
    handler: Handler | None = None,
    requirements: frozenset[str] | None = None,
    overrides: dict[str, Any] | None = None,
    left_out: tuple[str, ...] = (),
) -> Certified:
    """Serve the second dialect (``handler``: a variant) and run one stage of the kit against
    it; ``overrides``: profile sections over its own; ``left_out``: keys its file does not write."""
    workdir.mkdir(parents=True, exist_ok=True)
    profile = workdir / "profile.yaml"
    report_dir = workdir / "report"
    started = time.monotonic()
    server = serve(workdir / "refserver.db", profile, handler)
    try:
        write(profile, overrides, left_out)
        selected = ("--requirements", ",".join(sorted(requirements))) if requirements else ()
        report, output = suite_run.certify(
            server.base_url, profile, report_dir, (*selected, *stage), cwd=workdir
        )
    finally:
        server.stop()
    return Certified(report, output, time.monotonic() - started)
