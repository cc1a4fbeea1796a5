"""Certify the dialect (or one of its variants) as a user would: serve it, write its profile, run
``conformance run`` in a child process for one stage, and read ``conformance.json``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faulty.asgi import Handler
from faulty.harness import family

from dialect.profile import write
from dialect.server import serve
from tests.support import suite_run
from tests.support.report_outcomes import requirement_outcomes


@dataclass(frozen=True)
class Certified:
    report: dict[str, Any]
    output: str
    seconds: float

    @property
    def outcomes(self) -> dict[str, str]:
        return requirement_outcomes(self.report)

    def having(self, *outcomes: str) -> dict[str, str]:
        return {i: o for i, o in self.outcomes.items() if o in outcomes}

    def explain(self) -> str:
        shown = {i: o for i, o in self.outcomes.items() if o != "pass"}
        return f"verdict {self.report.get('verdict')}; not passed: {shown}\n{self.output[-3000:]}"


def watch_set(breaks: frozenset[str], checkable: frozenset[str]) -> frozenset[str]:
    """The broken ids and every checkable id of their families (as tests/faulty does)."""
    families = {family(i) for i in breaks}
    return frozenset(breaks | {i for i in checkable if family(i) in families})


def certify(
    workdir: Path,
    stage: tuple[str, ...] = (),
    handler: Handler | None = None,
    requirements: frozenset[str] | None = None,
    overrides: dict[str, Any] | None = None,
) -> Certified:
    """Serve the dialect (``handler``: a variant) and run one stage of the kit against it;
    ``overrides``: profile keys over the dialect's own."""
    workdir.mkdir(parents=True, exist_ok=True)
    profile = workdir / "profile.yaml"
    report_dir = workdir / "report"
    started = time.monotonic()
    server = serve(workdir / "refserver.db", profile, handler)
    try:
        write(profile, overrides)
        selected = ("--requirements", ",".join(sorted(requirements))) if requirements else ()
        report, output = suite_run.certify(
            server.base_url, profile, report_dir, (*selected, *stage), cwd=workdir
        )
    finally:
        server.stop()
    return Certified(report, output, time.monotonic() - started)
