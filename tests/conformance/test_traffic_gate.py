"""The traffic gate: an exclusive scenario is not starved by many workers' requests, and shared
holders really wait for it. Real processes and real ``flock`` locks on a file."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from typing import Any

from conformance.traffic.pacing import TrafficGate

HOLD_SECONDS = 0.045  # one request to a target 40 ms away
WORKERS = 8


def _requests(path: str, stop: Any, started: Any) -> None:
    gate = TrafficGate(Path(path))
    started.release()
    while not stop.is_set():
        with gate.shared():
            time.sleep(HOLD_SECONDS)
        time.sleep(0.002)


def test_an_exclusive_scenario_goes_before_new_requests(tmp_path: Path) -> None:
    """Eight workers keep a shared hold almost all the time; plain ``flock`` made the exclusive
    side wait 9 to 15 s here. With the intent file it waits for the requests in flight only."""
    path = str(tmp_path / "gate")
    context = multiprocessing.get_context("fork")
    stop, started = context.Event(), context.Semaphore(0)
    workers = [
        context.Process(target=_requests, args=(path, stop, started)) for _ in range(WORKERS)
    ]
    for worker in workers:
        worker.start()
    try:
        for _ in workers:
            assert started.acquire(timeout=10)
        time.sleep(0.3)
        gate = TrafficGate(Path(path))
        waits = []
        for _ in range(3):
            begun = time.monotonic()
            with gate.exclusive():
                waits.append(time.monotonic() - begun)
                time.sleep(0.05)
            time.sleep(0.1)
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=10)
    assert max(waits) < 1.0, waits


def test_shared_holders_wait_while_it_runs_and_nesting_keeps_it(tmp_path: Path) -> None:
    gate = TrafficGate(tmp_path / "gate")
    other = TrafficGate(tmp_path / "gate")  # another worker's view: its own descriptors
    context = multiprocessing.get_context("fork")
    entered = context.Event()

    def request() -> None:
        with TrafficGate(tmp_path / "gate").shared():
            entered.set()

    with gate.exclusive():
        with gate.exclusive():  # settled() inside an exclusive scenario
            pass
        child = context.Process(target=request)
        child.start()
        assert not entered.wait(0.5)  # still held alone after the inner exit
    assert entered.wait(5)
    child.join(timeout=5)
    with other.shared():
        pass
