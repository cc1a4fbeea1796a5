"""The load stage end to end (slow): the embedded reference server certified green with the
default profile on two local Locust workers, and a worker joining the master by address."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.registry.load import STAGE
from conformance.stages.load import objectives
from tests.support.conformance_cli import start_conformance
from tests.support.ports import free_port
from tests.support.report_outcomes import requirement_outcomes

pytestmark = pytest.mark.timing  # its long tests are judged by the clock: one at a time

TIMEOUT_S = 240


def report(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((path / "conformance.json").read_text("utf-8"))
    return data


def load_details(data: dict[str, Any]) -> dict[str, Any]:
    (stage,) = [s for s in data["stages"] if s["name"] == "load"]
    details: dict[str, Any] = stage["details"]
    return details


def test_the_embedded_reference_server_is_green_on_two_local_workers(tmp_path: Path) -> None:
    run = start_conformance(
        "run", "--stage", "load", "--load-workers", "2", "--load-port", str(free_port()),
        "--report-dir", str(tmp_path / "report"), "--quiet", cwd=tmp_path,
    )  # fmt: skip
    output, _ = run.communicate(timeout=TIMEOUT_S)
    assert run.returncode == 0, output[-3000:]
    data = report(tmp_path / "report")
    declared = dict.fromkeys(objectives.KEYS, "not-configured")  # the default declares none
    rules = STAGE.requirements() - set(declared)  # the spec's rules a load run judges
    assert requirement_outcomes(data) == {**dict.fromkeys(rules, "pass"), **declared}
    figures = load_details(data)["figures"]
    assert figures["workers"] == 2
    assert all(polls > 0 for polls in figures["worker_polls"].values())
    assert figures["instances"] == 1000


def test_a_worker_joins_by_address(tmp_path: Path, fresh_reference_server: Any) -> None:
    """The master waits for one local and one remote worker; the remote one is a second process
    started with ``conformance load-worker --master 127.0.0.1:PORT``; both feed one report."""
    profile = tmp_path / "profile.yaml"
    data = yaml.safe_load(Path(fresh_reference_server.profile_path).read_text("utf-8"))
    data["load"] = {"fleet": 400, "run_seconds": 15.0}
    profile.write_text(yaml.safe_dump(data), "utf-8")
    port = free_port()
    run = start_conformance(
        "run", "--stage", "load", "--base-url", str(fresh_reference_server.base_url),
        "--profile", str(profile), "--load-workers", "1", "--load-remote-workers", "1",
        "--load-bind", "127.0.0.1", "--load-port", str(port),
        "--report-dir", str(tmp_path / "report"), "--quiet", cwd=tmp_path,
    )  # fmt: skip
    worker = start_conformance("load-worker", "--master", f"127.0.0.1:{port}", cwd=tmp_path)
    try:
        output, _ = run.communicate(timeout=TIMEOUT_S)
        worker.wait(timeout=30)
    finally:
        for process in (run, worker):
            if process.poll() is None:
                process.kill()
    assert run.returncode in (0, 3), output[-3000:]  # a small fleet may not pass the threshold
    figures = load_details(report(tmp_path / "report"))["figures"]
    assert figures["workers"] == 2
    assert sorted(figures["worker_polls"]) == ["0", "1"]
    assert all(polls > 0 for polls in figures["worker_polls"].values())
    assert figures["instances"] == 400
    assert "fail" not in requirement_outcomes(report(tmp_path / "report")).values()


@pytest.mark.long  # about 30 s: a fleet's run
def test_a_requirement_selection_keeps_the_summary_and_charts(
    tmp_path: Path, fresh_reference_server: Any
) -> None:
    """``--requirements LIMIT-RATE-ENFORCED`` deselects every load test but that one's: the
    stage's summary and charts stay, published by the fleet's run (``conformance.session.wire``),
    not by a test the selection may leave out."""
    profile = tmp_path / "profile.yaml"
    data = yaml.safe_load(Path(fresh_reference_server.profile_path).read_text("utf-8"))
    data["load"] = {"fleet": 400, "run_seconds": 15.0}
    profile.write_text(yaml.safe_dump(data), "utf-8")
    run = start_conformance(
        "run", "--stage", "load", "--requirements", "LIMIT-RATE-ENFORCED",
        "--base-url", str(fresh_reference_server.base_url), "--profile", str(profile),
        "--load-workers", "1", "--load-port", str(free_port()),
        "--report-dir", str(tmp_path / "report"), "--quiet", cwd=tmp_path,
    )  # fmt: skip
    output, _ = run.communicate(timeout=TIMEOUT_S)
    assert run.returncode in (0, 3), output[-3000:]  # a small fleet may not pass the threshold
    written = report(tmp_path / "report")
    # the test that published the details is left out by the selection
    assert "ERR-NO-SERVER-ERROR" not in requirement_outcomes(written)
    details = load_details(written)
    assert details["figures"]["instances"] == 400
    assert details["series"]
    page = (tmp_path / "report" / "conformance.html").read_text("utf-8")
    assert "Requests per second" in page and "<svg" in page
