"""Runs never collide on one machine (issue 39): two runs of each stage at once both complete
(two load stages, neither naming a port: each master on a free port of its own; two scenario
runs, two fuzz runs, two client-stage runs of the reference client); a Locust failure is one
line, never its traceback."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from conformance.stages.load.engine import failure_line
from conformance.stages.load.plugin import master_port
from tests.support.conformance_cli import start_conformance

pytestmark = pytest.mark.timing  # its long tests are judged by the clock: one at a time

TIMEOUT_S = 300


def test_the_master_port_is_free_unless_asked_or_workers_join() -> None:
    assert master_port(6001, 0) == 6001
    assert master_port(None, 2) == 5557  # workers from elsewhere must know it
    port = master_port(None, 0)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", port))  # free: nothing listens there


def test_a_locust_failure_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "master.log"
    log.write_text(
        "[2026-11-29] master: Starting Locust\nTraceback (most recent call last):\n"
        '  File "zmqrpc.py", line 21, in __init__\n    self.socket.bind(...)\n'
        "zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:5557')\n\n"
        "During handling of the above exception, another exception occurred:\n"
        "locust.exception.RPCError: Socket bind failure: Address already in use\n",
        "utf-8",
    )
    assert (
        failure_line(log)
        == "locust.exception.RPCError: Socket bind failure: Address already in use"
    )
    assert failure_line(tmp_path / "absent.log") == "no log"


@pytest.mark.long
@pytest.mark.parametrize(
    "stage",
    [
        ("--stage", "load", "--load-workers", "1"),
        ("--requirements", "SDK-STATUS-200-SNAPSHOT,CFG-CREATE-MINIMAL-BODY,VER-PATH-V2"),
        ("--stage", "fuzz", "--tier", "smoke"),
        ("--stage", "client"),
    ],
    ids=["load", "scenarios", "fuzz", "client"],
)
def test_two_runs_of_a_stage_at_once_both_complete(tmp_path: Path, stage: tuple[str, ...]) -> None:
    runs = []
    for n in (1, 2):
        workdir = tmp_path / f"run-{n}"
        workdir.mkdir()
        arguments = ("run", *stage, "--report-dir", str(workdir / "report"), "--quiet")
        runs.append(start_conformance(*arguments, cwd=workdir))
    outputs = [run.communicate(timeout=TIMEOUT_S)[0] for run in runs]
    for run, output in zip(runs, outputs, strict=True):
        assert run.returncode == 0, output[-3000:]
        assert "Traceback" not in output and "Address already in use" not in output
    for n in (1, 2):
        report = json.loads((tmp_path / f"run-{n}/report/conformance.json").read_text("utf-8"))
        assert report["verdict"] in ("conformant", "conformant-with-declared-exceptions")
