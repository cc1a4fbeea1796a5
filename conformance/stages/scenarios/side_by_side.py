"""Independent drains side by side in the serial phase: once the target has shown each instance
id a bucket of its own (``LIMIT-RATE-PER-INSTANCE`` passed in this run), the traffic of the other
rate-limit tests goes out at once, each on a client of its own, and each test takes its traffic
and judges it alone.

Spec 8 keys a bucket by the instance id (callers without one share a bucket of their own), so
drains of different ids cannot disturb each other on a target that keeps it; their waits (a
Retry-After, a bucket's refill) overlap. Until the per-instance test has passed, and on a target
where it failed or was not measurable, every test sends its own traffic when it runs, one after
another, as before: the overlap follows the evidence, never the other way round.

Drains side by side ask the target (and the path to it) for several drains' throughput at once.
A correct target that is slow, or behind a capped path, may not keep up: overlapped traffic that
was not ``undisturbed`` (a poll unanswered or answered otherwise, requests waiting for a free
connection: the traffic stops at the first such poll, told it is not alone) is sent again, alone,
when its test runs, and only that is judged; its exchanges stay in the test's transcript.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import pytest

from conformance.drivers.sdk import Snapshots

T = TypeVar("T")


@dataclass
class _Pending(Generic[T]):
    """One test's traffic on its way: its own client, and what came of it."""

    snapshots: Snapshots
    send: Callable[[Snapshots, bool], T]
    result: list[T] = field(default_factory=list)
    error: list[BaseException] = field(default_factory=list)
    thread: threading.Thread | None = None

    def start(self, name: str) -> None:
        self.thread = threading.Thread(target=self._run, name=f"side by side: {name}", daemon=True)
        self.thread.start()

    def wait(self) -> T:
        if self.thread is not None:
            self.thread.join()
        if self.error:
            raise self.error[0]
        return self.result[0]

    def _run(self) -> None:
        try:
            self.result.append(self.send(self.snapshots, False))
        except BaseException as error:  # handed to the test that takes this traffic
            self.error.append(error)


@dataclass
class _Session(Generic[T]):
    independent: bool = False  # the target showed each instance id a bucket of its own
    started: bool = False
    pending: dict[str, _Pending[T]] = field(default_factory=dict)


@dataclass(frozen=True)
class SideBySide(Generic[T]):
    """The traffic of the named tests (test function name -> what it sends), started together
    once ``independent`` was called in this session, for the tests it still runs."""

    traffic: dict[str, Callable[[Snapshots, bool], T]]  # (snapshots, alone) -> what it sent
    undisturbed: Callable[[Snapshots, T], bool]  # overlapped traffic fit to judge as it is
    key: pytest.StashKey[_Session[T]] = field(default_factory=pytest.StashKey)

    def independent(self, request: pytest.FixtureRequest) -> None:
        """The target showed each instance id a bucket of its own: overlap from now on."""
        self._session(request).independent = True

    def take(self, request: pytest.FixtureRequest, snapshots: Snapshots) -> T:
        """This test's traffic: sent side by side with the others' once buckets are shown
        independent (its exchanges join this test's transcript), else sent now."""
        name = request.node.originalname if isinstance(request.node, pytest.Function) else ""
        state = self._session(request)
        if state.independent and not state.started:
            state.started = True
            for other in self._still_to_run(request):
                state.pending[other] = _Pending(
                    Snapshots(snapshots.client.sibling()), self.traffic[other]
                )
            for other, pending in state.pending.items():
                pending.start(other)
        waiting = state.pending.pop(name, None)
        if waiting is None:
            return self.traffic[name](snapshots, True)
        try:
            overlapped: T | None = waiting.wait()
        except Exception:  # a transport error under several drains at once, say: alone again
            overlapped = None
        for exchange in waiting.snapshots.client.transcript.exchanges:
            snapshots.client.transcript.add(exchange)
        if overlapped is not None and self.undisturbed(snapshots, overlapped):
            return overlapped
        return self.traffic[name](snapshots, True)

    def _session(self, request: pytest.FixtureRequest) -> _Session[T]:
        stash = request.session.stash
        if self.key not in stash:
            stash[self.key] = _Session()
        return stash[self.key]

    def _still_to_run(self, request: pytest.FixtureRequest) -> list[str]:
        """The named tests this session runs from this one on (selected, not yet run)."""
        items = request.session.items
        here = items.index(request.node) if request.node in items else 0
        still = {
            item.originalname
            for item in items[here:]
            if isinstance(item, pytest.Function) and item.module is request.node.module
        }
        return [name for name in self.traffic if name in still]
