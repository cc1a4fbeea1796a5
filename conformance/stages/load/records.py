"""What the fleet records and the master merges: one row per poll and per write, as lists on the
wire (msgpack between Locust processes, JSON in the result file) and as named tuples to judge.

Times are wall-clock seconds (``time.time()``) on the machine that sent: workers on other
machines need synchronised clocks (docs/load.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

WELL_BEHAVED, NOISY, ANONYMOUS = "w", "n", "a"
KINDS = {WELL_BEHAVED: "well-behaved", NOISY: "noisy", ANONYMOUS: "anonymous"}
TRANSPORT_ERROR = 0  # the status of a poll that got no answer (timeout, reset, refused)


class Poll(NamedTuple):
    planned: float  # when the instance meant to send
    sent: float
    latency: float  # seconds to the whole answer (or to the transport error)
    status: int  # 0: no answer
    kind: str  # WELL_BEHAVED | NOISY | ANONYMOUS
    instance: str  # the instance id sent (anonymous: the poller's own label)
    config_hash: str  # the watched configuration's hash this answer shows ("" unknown)
    hint: int  # 1: a 200 body carried polling
    problem: str  # a malformed answer or transport error, "" when well formed
    retry_after: float | None  # a 429's Retry-After in seconds (None: absent or not a 429)
    host: str  # the generator machine (anonymous pollers share a bucket per address)


class Write(NamedTuple):
    started: float
    done: float
    status: int
    content_hash: str  # the record's contentHash after the patch ("" unknown)
    problem: str


@dataclass
class Results:
    """Everything the master received, plus what each worker said about itself."""

    started: float  # wall clock of the test start (the plan's zero)
    polls: list[Poll] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    initial_hash: str = ""  # the watched configuration's contentHash before the first write
    # per worker: host, sent, and cpu, run_delay, gc_s (each also as first_<name>)
    workers: dict[str, dict[str, float | str]] = field(default_factory=dict)
    users: list[tuple[float, int]] = field(default_factory=list)  # (t, users running) on master
    stopped: str = ""  # the signal that stopped the fleet before its plan's end ("": ran to it)
    stopped_at: float = 0.0  # wall clock of that stop

    def to_json(self) -> dict[str, object]:
        return {
            "started": self.started,
            "polls": [list(p) for p in self.polls],
            "writes": [list(w) for w in self.writes],
            "initial_hash": self.initial_hash,
            "workers": self.workers,
            "users": self.users,
            "stopped": self.stopped,
            "stopped_at": self.stopped_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Results:
        return cls(
            started=float(data["started"]),
            polls=[Poll(*row) for row in data.get("polls", ())],
            writes=[Write(*row) for row in data.get("writes", ())],
            initial_hash=str(data.get("initial_hash", "")),
            workers=dict(data.get("workers", {})),
            users=[(float(t), int(n)) for t, n in data.get("users", ())],
            stopped=str(data.get("stopped", "")),
            stopped_at=float(data.get("stopped_at", 0.0)),
        )

    @classmethod
    def load(cls, path: Path) -> Results:
        return cls.from_json(json.loads(path.read_text("utf-8")))

    def stop_note(self, run_s: float) -> str:
        """How far a fleet stopped by a signal got ("" when it ran to its plan's end)."""
        if not self.stopped:
            return ""
        if not self.started:
            return f"the run was stopped by {self.stopped} before the fleet started"
        into = max(0.0, self.stopped_at - self.started)
        return (
            f"the run was stopped by {self.stopped} {into:.1f} s into the fleet's {run_s:g} s "
            f"plan ({len(self.polls)} polls recorded)"
        )

    def of_kind(self, kind: str) -> list[Poll]:
        return [p for p in self.polls if p.kind == kind]
