"""The records' way from each Locust worker to the master's result file: the worker's outbox and
its flushes, the master's store, its progress lines, and the result it writes as it quits.

Runs only inside Locust processes (the locustfile wires these to Locust's events).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from typing import Any

import gevent
from locust.env import Environment
from locust.rpc import Message
from locust.runners import MasterRunner, WorkerRunner

from conformance.stages.load.plan import Plan

FLUSH_SECONDS = 0.5
PROGRESS_SECONDS = 2.0
MESSAGE = "rces_records"


class Outbox:
    """A worker's records not yet sent: poll and write rows (``records.Poll``, ``records.Write``
    as lists), and the seconds it has spent in the cyclic collector."""

    def __init__(self) -> None:
        self.polls: list[list[Any]] = []
        self.writes: list[list[Any]] = []
        self.gc_started = 0.0
        self.gc_s = 0.0

    def gc_timer(self, phase: str, _info: dict[str, int]) -> None:
        """A ``gc.callbacks`` entry: adds up the time the worker spent collecting."""
        if phase == "start":
            self.gc_started = time.perf_counter()
        else:
            self.gc_s += time.perf_counter() - self.gc_started


OUTBOX = Outbox()


def run_delay() -> float:
    """Seconds this process has waited for a core while runnable (Linux schedstat; else 0)."""
    try:
        with open("/proc/self/schedstat", encoding="ascii") as file:
            return int(file.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def flush(environment: Environment, host: str) -> None:
    """Send what the outbox holds to the master, with the worker's CPU, core wait and GC time."""
    polls, writes = OUTBOX.polls, OUTBOX.writes
    OUTBOX.polls, OUTBOX.writes = [], []
    runner = environment.runner
    assert isinstance(runner, WorkerRunner), "flushed by workers only (flush_loop)"
    data = {
        "worker": str(runner.worker_index),
        "host": host,
        "cpu": time.process_time(),
        "run_delay": run_delay(),
        "gc_s": OUTBOX.gc_s,
        "polls": polls,
        "writes": writes,
    }
    runner.send_message(MESSAGE, data)


def flush_loop(environment: Environment, host: str, planned: Any) -> None:
    """Every ``FLUSH_SECONDS``: a flush, once there is something to send or a plan
    (``planned()``: the worker's CPU figures go out from its plan on)."""
    while True:
        gevent.sleep(FLUSH_SECONDS)
        if OUTBOX.polls or OUTBOX.writes or planned():
            flush(environment, host)


class Store:
    """The master's side: every worker's records as they arrive, and the users over time."""

    def __init__(self) -> None:
        self.polls: list[list[Any]] = []
        self.writes: list[list[Any]] = []
        self.workers: dict[str, dict[str, Any]] = {}
        self.users: list[list[float]] = []
        self.started = 0.0

    def received(self, environment: Environment, msg: Message, **_: object) -> None:
        """The handler of the workers' ``MESSAGE``."""
        data = msg.data
        self.polls.extend(data["polls"])
        self.writes.extend(data["writes"])
        worker = self.workers.setdefault(data["worker"], {"host": data["host"], "sent": 0})
        for name in ("cpu", "run_delay", "gc_s"):  # so far; first: at the worker's first flush
            worker[name] = data.get(name, 0.0)
            worker.setdefault(f"first_{name}", worker[name])
        worker["sent"] += len(data["polls"])

    def write_result(self, path: str) -> None:
        """The result file the engine reads (``records.Results``), written whole or not at all."""
        result = {
            "started": self.started,
            "polls": self.polls,
            "writes": self.writes,
            "workers": self.workers,
            "users": self.users,
            "initial_hash": "",
        }
        with open(path + ".part", "w", encoding="utf-8") as file:
            json.dump(result, file)
        os.replace(path + ".part", path)


def progress_loop(environment: Environment, store: Store, plan: Plan) -> None:
    """Every ``PROGRESS_SECONDS``, one line to ``RCES_LOAD_PROGRESS`` (a path, or ``-``)."""
    runner = environment.runner
    assert isinstance(runner, MasterRunner), "the master's progress (spawned at test start)"
    target = os.environ.get("RCES_LOAD_PROGRESS", "-")
    out = sys.stderr if target == "-" else open(target, "a", encoding="utf-8")  # noqa: SIM115
    seen = 0
    while True:
        gevent.sleep(PROGRESS_SECONDS)
        polls = store.polls
        fresh = polls[seen:]
        seen = len(polls)
        users = runner.user_count
        store.users.append([time.time(), users])
        others = plan.noisy + plan.anonymous + (1 if plan.write_interval_s else 0)
        fleet = min(plan.fleet, max(0, users - others) * plan.shard)
        statuses = Counter(p[3] for p in fresh)
        hints = sum(p[7] for p in fresh)
        ok = statuses[200] or 1
        out.write(
            f"load: {time.time() - store.started:5.1f}s fleet {fleet:6d} "
            f"{len(fresh) / PROGRESS_SECONDS:7.0f} req/s"
            f"  429 {statuses[429] / max(1, len(fresh)):.1%}"
            f"  hint {hints / ok:.0%} of 200  5xx/none "
            f"{sum(v for k, v in statuses.items() if k >= 500 or k == 0)}\n"
        )
        out.flush()
