"""The load section of the faulty servers (``faulty.load_faults``), each served and certified by
``conformance run --stage load``: it must fail exactly its declared requirements (long tier)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.registry.load import STAGE
from faulty.asgi import FaultyApp
from faulty.catalogue import LOAD_SECTIONS
from faulty.context import Context
from faulty.load_faults import DECLARED_LATENCY, DECLARED_NOT_MODIFIED, DECLARED_THROUGHPUT
from faulty.recipes import Fault, fault, passthrough
from faulty.selection import only_from_environment, selected
from tests.support.conformance_cli import run_conformance
from tests.support.profiles import with_overrides
from tests.support.report_outcomes import written_outcomes

pytestmark = [pytest.mark.long, pytest.mark.timing]  # judged by the clock: one at a time
TIMEOUT_S = 300
# conformance selftest --side load --only NAME,...: exact fault names (RCES_SELFTEST_ONLY)
CHOSEN = selected(LOAD_SECTIONS["load"], only_from_environment(), what="load fault")


def run_load_fault(fault: Fault, workdir: Path, port: int) -> tuple[dict[str, str], str]:
    """Serve the fault and run the load stage on it, once: the outcomes and the run's output."""
    from refserver.runner import start_server

    workdir.mkdir(parents=True, exist_ok=True)
    db, profile = workdir / "refserver.db", workdir / "profile.yaml"

    def wrap(app: Any) -> FaultyApp:
        return FaultyApp(app, fault.make(Context.load(profile, db)))

    server = start_server(db, profile_path=profile, wrap=wrap)
    report = workdir / "report"
    try:
        if fault.profile:
            with_overrides(profile, fault.profile)
        done = run_conformance(
            "run", "--stage", "load",
            "--base-url", str(server.base_url), "--profile", str(profile),
            "--report-dir", str(report), "--formats", "json", "--workers", "0", "--quiet",
            "--load-workers", "1", "--load-port", str(port),
            timeout=TIMEOUT_S, cwd=workdir,
        )  # fmt: skip
    finally:
        server.stop()
    return written_outcomes(report), done.stdout + done.stderr


@pytest.mark.parametrize("fault", CHOSEN, ids=lambda f: f.name)
def test_load_fault_is_caught_exactly(
    fault: Fault, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    assert fault.breaks <= STAGE.requirements(), "a load fault must break what the stage judges"
    record_property("fault_breaks", sorted(fault.breaks))  # what conformance selftest tallies
    started = time.monotonic()
    outcomes, output = run_load_fault(fault, tmp_path, 5700)
    failed = {i for i, outcome in outcomes.items() if outcome == "fail"}
    record_property("fault_seconds", round(time.monotonic() - started, 1))
    if outcomes:  # no report (the suite did not start): no verdict, not "failed nothing"
        record_property("fault_failed", sorted(failed))
    assert failed == set(fault.breaks), (
        f"{fault.name}: failed {sorted(failed)}, declared {sorted(fault.breaks)}; "
        f"outcomes {outcomes}\n{output[-3000:]}"
    )


def test_the_reference_server_meets_every_objective_the_faults_declare(tmp_path: Path) -> None:
    """The correct side of the objective faults: the same declarations, all at once, pass."""
    declared: dict[str, Any] = {"load": {}}
    for part in (DECLARED_LATENCY, DECLARED_NOT_MODIFIED, DECLARED_THROUGHPUT):
        declared["load"].update(part["load"])
    correct = fault("reference", "", "the reference server", passthrough, profile=declared)
    outcomes, output = run_load_fault(correct, tmp_path, 5710)
    assert outcomes == dict.fromkeys(STAGE.requirements(), "pass"), output[-3000:]
