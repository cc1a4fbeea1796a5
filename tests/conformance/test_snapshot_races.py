"""Race retries: a snapshot that moves only while others write is waited out; one that moves with
the suite's traffic halted is the target's own doing, and fails the requirement under test."""

from __future__ import annotations

import itertools
import json
import socket
import threading
from pathlib import Path

import pytest

from conformance.checks.sdk import RACE_RETRIES, Snapshots, bracketed, settled
from conformance.errors import ContractViolation
from conformance.profile import parse
from conformance.traffic.client import Client
from conformance.traffic.pacing import TrafficGate
from tests.conformance.hostile_servers import PROFILE, Behaviour, Hostile, answer


def test_a_race_that_ends_is_waited_out(tmp_path: Path) -> None:
    results = iter([None, None, "quiet"])
    assert settled(TrafficGate(tmp_path / "gate"), lambda: next(results)) == "quiet"


def test_the_last_attempt_runs_with_the_gate_held_alone(tmp_path: Path) -> None:
    gate = TrafficGate(tmp_path / "gate")
    held: list[int] = []

    def attempt() -> None:
        held.append(gate._exclusive_depth)
        return None

    assert settled(gate, attempt) is None
    assert held == [0] * RACE_RETRIES + [1]


def _moving_hashes() -> Behaviour:
    numbers = itertools.count()
    lock = threading.Lock()

    def send(conn: socket.socket, stop: threading.Event) -> None:
        with lock:
            body = {"hash": f"h{next(numbers)}", "configurations": []}
        answer(200, json.dumps(body).encode())(conn, stop)

    return send


def test_a_snapshot_that_never_holds_still_fails_the_requirement(tmp_path: Path) -> None:
    profile = parse(PROFILE)
    with (
        Hostile([_moving_hashes()]).running() as server,
        Client(server.base_url, profile, gate=TrafficGate(tmp_path / "gate")) as client,
        pytest.raises(ContractViolation) as caught,
    ):
        Snapshots(client).stable_hash("development", ("SDK-STATUS-HASH-STABLE",))
    assert caught.value.requirement_ids == ("SDK-STATUS-HASH-STABLE",)
    assert "moved with nothing written" in caught.value.title
    assert "halted" in caught.value.received


def test_a_disagreement_is_read_again_and_judged_with_the_suite_halted(tmp_path: Path) -> None:
    """Another worker's write and its undoing can fall between two equal reference reads."""
    gate = TrafficGate(tmp_path / "gate")
    passing = iter(["B", "B", "A"])  # an experiment created, then terminated, then quiet
    assert bracketed(gate, lambda: "A", lambda: next(passing), (), agree=str.__eq__) == ("A", "A")
    held: list[int] = []

    def differs() -> str:
        held.append(gate._exclusive_depth)
        return "B"

    assert bracketed(gate, lambda: "A", differs, (), agree=str.__eq__) == ("A", "B")
    assert held[-1] == 1  # the answer judged was read with the gate held alone
