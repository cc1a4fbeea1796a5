"""Run the suite against one faulty server and say which requirements it failed.

``run_fault`` starts the reference server wrapped in the fault on 127.0.0.1 (free port, own
SQLite file, uvicorn in a thread), runs ``conformance run`` against it in a child process,
narrowed with ``--requirements`` to the fault's *watch set*, and reads ``conformance.json``.

The watch set is the broken ids, every requirement of the same family (ids sharing their first
two segments, e.g. all ``CFG-PATCH-*``), and the fault's own extra ``watch`` ids: wide enough to
see a check that fails where it should not (imprecise), narrow enough to keep the catalogue fast.

With ``RCES_SELFTEST_FULL=1`` in the environment (``conformance selftest --full``) the watch set
is every checkable requirement and the suite runs unnarrowed (no ``--requirements``): a failure
anywhere, however far from the defect, counts against the fault's exact set.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.catalogue.requirements import load_catalogue
from faulty.asgi import FaultyApp
from faulty.catalogue import Fault
from faulty.context import Context
from refserver.runner import start_server
from tests.support.conformance_cli import run_conformance
from tests.support.profiles import with_overrides
from tests.support.report_outcomes import written_outcomes

RUN_TIMEOUT_SECONDS = 600
CAUGHT = frozenset({"fail"})
FULL_ENV = "RCES_SELFTEST_FULL"


def full_mode() -> bool:
    """True when every fault runs the whole suite (``conformance selftest --full``)."""
    return os.environ.get(FULL_ENV, "") not in ("", "0")


def checkable_ids() -> frozenset[str]:
    return frozenset(r.id for r in load_catalogue() if r.checkable)


def family(requirement_id: str) -> str:
    return "-".join(requirement_id.split("-")[:2])


def watch_set(fault: Fault, full: bool | None = None) -> frozenset[str]:
    """The ids a fault's run judges: its families (default), or every checkable id (full)."""
    checkable = checkable_ids()
    if full_mode() if full is None else full:
        return checkable
    families = {family(i) for i in fault.breaks}
    return frozenset(fault.breaks | fault.watch | {i for i in checkable if family(i) in families})


@dataclass(frozen=True)
class FaultRun:
    fault: Fault
    watched: frozenset[str]
    outcomes: dict[str, str]
    seconds: float
    output: str

    @property
    def failed(self) -> frozenset[str]:
        return frozenset(i for i, o in self.outcomes.items() if o in CAUGHT)

    @property
    def missed(self) -> frozenset[str]:
        """Declared broken, but the suite did not fail them (a toothless check)."""
        return self.fault.breaks - self.failed

    @property
    def extra(self) -> frozenset[str]:
        """Failed, but not declared broken (an imprecise check, or a wrong declaration)."""
        return self.failed - self.fault.breaks

    def explain(self) -> str:
        lines = [f"fault {self.fault.name}: {self.fault.doc}"]
        if self.missed:
            lines.append(
                "declared but not failed: "
                + ", ".join(f"{i} ({self.outcomes.get(i, 'not run')})" for i in sorted(self.missed))
            )
        if self.extra:
            lines.append("failed but not declared: " + ", ".join(sorted(self.extra)))
        lines.append(self.output[-3000:])
        return "\n".join(lines)


def suite_arguments(
    base_url: str, profile: Path, requirements: frozenset[str], report_dir: Path
) -> list[str]:
    """The arguments of ``conformance``; every checkable id watched means no narrowing at all."""
    narrowed = requirements != checkable_ids()
    return [
        "run",
        "--base-url", base_url,
        "--profile", str(profile),
        *(["--requirements", ",".join(sorted(requirements))] if narrowed else []),
        "--report-dir", str(report_dir),
        "--formats", "json",  # the one report the catalogue reads: the others cost time
        "--workers", "0",
        "--quiet",
    ]  # fmt: skip


def run_suite(base_url: str, profile: Path, requirements: frozenset[str], report_dir: Path) -> str:
    """``conformance run`` in a child process (one worker); returns its output."""
    arguments = suite_arguments(base_url, profile, requirements, report_dir)
    done = run_conformance(*arguments, timeout=RUN_TIMEOUT_SECONDS, cwd=report_dir.parent)
    return done.stdout + done.stderr


def run_fault(fault: Fault, workdir: Path, requirements: frozenset[str] | None = None) -> FaultRun:
    """Serve the fault, run the suite narrowed to its watch set (or to ``requirements``), and
    collect the outcomes. Once: a declared id the suite could not measure is a verdict too (the
    suite's own shortfall, for the catalogue to show, not to run again until it hides)."""
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    db = workdir / "refserver.db"
    profile = workdir / "profile.yaml"
    watched = watch_set(fault) if requirements is None else requirements

    def wrap(app: object) -> FaultyApp:
        return FaultyApp(app, fault.make(Context.load(profile, db)))  # type: ignore[arg-type]

    server = start_server(db, profile_path=profile, wrap=wrap, **fault.settings)
    try:
        if fault.profile:
            with_overrides(profile, fault.profile)
        report_dir = workdir / "report"
        output = run_suite(server.base_url, profile, watched, report_dir)
    finally:
        server.stop()
    return FaultRun(
        fault, watched, written_outcomes(report_dir), time.monotonic() - started, output
    )
