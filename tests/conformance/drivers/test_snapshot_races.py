"""Snapshot-stability reads run in the serial phase: a snapshot that moves there is the target's own
doing and fails the requirement under test; outside the serial phase such a read is a suite bug."""

from __future__ import annotations

import itertools
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from conformance.drivers.sdk import SETTLE_ATTEMPTS, Snapshots, bracketed, settled
from conformance.errors import ContractViolation
from conformance.profile import parse
from conformance.session import serial_phase as run_phases
from conformance.traffic.client import Client
from tests.support.hostile_servers import PROFILE, Behaviour, Hostile, answer


@pytest.fixture
def serial_phase(request: pytest.FixtureRequest) -> Iterator[None]:
    """As if this test were marked ``serial`` (what the plugin's hook records)."""
    run_phases._RUNNING.append(request.node)
    try:
        yield
    finally:
        run_phases._RUNNING.remove(request.node)


def test_a_stability_read_outside_the_serial_phase_is_a_suite_error() -> None:
    with pytest.raises(run_phases.QuietnessUnknown, match="mark the test `serial`"):
        settled(lambda: "quiet")


@pytest.mark.usefixtures("serial_phase")
def test_in_the_serial_phase_a_few_reads_decide() -> None:
    calls: list[int] = []

    def attempt() -> str | None:
        calls.append(1)
        return "quiet" if len(calls) == SETTLE_ATTEMPTS else None

    assert settled(attempt) == "quiet"  # a snapshot that catches up a moment late
    calls.clear()
    assert settled(lambda: calls.append(1)) is None  # one that never holds still
    assert len(calls) == SETTLE_ATTEMPTS


def _moving_hashes() -> Behaviour:
    numbers = itertools.count()
    lock = threading.Lock()

    def send(conn: socket.socket, stop: threading.Event) -> None:
        with lock:
            body = {"hash": f"h{next(numbers)}", "configurations": []}
        answer(200, json.dumps(body).encode())(conn, stop)

    return send


@pytest.mark.usefixtures("serial_phase")
def test_a_snapshot_that_does_not_hold_still_fails_the_requirement() -> None:
    profile = parse(PROFILE)
    with (
        Hostile([_moving_hashes()]).running() as server,
        Client(server.base_url, profile) as client,
        pytest.raises(ContractViolation) as caught,
    ):
        Snapshots(client).stable_hash("development", ("SDK-STATUS-HASH-STABLE",))
    assert caught.value.requirement_ids == ("SDK-STATUS-HASH-STABLE",)
    assert "moved with nothing written" in caught.value.title


@pytest.mark.usefixtures("serial_phase")
def test_a_reference_that_moves_around_the_other_read_fails() -> None:
    readings = itertools.count()
    with pytest.raises(ContractViolation) as caught:
        bracketed(lambda: next(readings), lambda: "x", ("SDK-STATUS-HASH-STABLE",))
    assert "(4, 5)" in caught.value.received  # the last of SETTLE_ATTEMPTS tries
    assert bracketed(lambda: "A", lambda: "x", ()) == ("A", "x")


@pytest.mark.usefixtures("serial_phase")
def test_a_reference_that_catches_up_a_moment_late_passes() -> None:
    readings = iter(["A", "B", "B", "B"])
    assert bracketed(lambda: next(readings), lambda: "x", ()) == ("B", "x")
