"""The simulated fleet on Locust: well-behaved instances, noisy ones, anonymous pollers, a writer,
the ramp as a ``LoadTestShape``, wired to Locust's events (one poll on the wire:
``status_poll``; the records each worker streams to the master: ``relay``).

Runs only inside Locust processes (``locust -f`` this file, master or worker): importing Locust
patches the whole process for gevent. The master reads the plan from the file named by
``RCES_LOAD_PLAN`` and hands it to every worker in the spawn message (a custom option, so a
worker started elsewhere with ``conformance load-worker`` needs nothing but the master's
address); it writes what the workers sent to ``RCES_LOAD_RESULT`` when it quits, and prints
progress to ``RCES_LOAD_PROGRESS`` (a path, or ``-`` for its stderr). Stopped early by SIGTERM
or SIGINT, the master quits as on Ctrl-C and writes what it received so far.
"""

from __future__ import annotations

import functools
import gc
import heapq
import json
import os
import signal
import socket
import time
from argparse import Namespace
from types import FrameType
from typing import Any

import gevent
import gevent.event
from geventhttpclient.client import HTTPClientPool
from geventhttpclient.url import URL
from locust import FastHttpUser, LoadTestShape, User, argument_parser, events, task
from locust.argument_parser import LocustArgumentParser
from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

from conformance.stages.load import relay
from conformance.stages.load.plan import DRAIN_SECONDS, Plan
from conformance.stages.load.records import ANONYMOUS, NOISY, TRANSPORT_ERROR, WELL_BEHAVED
from conformance.stages.load.rules import PollerState
from conformance.stages.load.status_poll import STATUS, Answer, Exchange, Readings, outcome

POOL_CONNECTIONS = 256  # per worker: instances share connections, as proxies in front of a fleet do
HOST = socket.gethostname()  # once: a uname call per poll is CPU the scheduler needs

_state: dict[str, Any] = {"plan": None, "seq": 0}

# A worker handling a spawn message builds Locust's whole argument parser once per option it
# was sent (runners.py: ``k not in argument_parser.default_args_dict()`` in a comprehension),
# once a second during the ramp, and every poll due meanwhile waits. The defaults never change
# within a process and callers only read them: built once.
argument_parser.default_args_dict = functools.cache(argument_parser.default_args_dict)


def _options_of(environment: Environment) -> Namespace:
    """The parsed command line, custom options included (Locust parses it before any listener
    or user runs)."""
    options = environment.parsed_options
    assert isinstance(options, Namespace), "Locust sets the parsed options first"
    return options


def plan_of(environment: Environment) -> Plan:
    plan = _state["plan"]
    if plan is None:
        plan = Plan.from_json(str(_options_of(environment).rces_plan))
        _state["plan"] = plan
    assert isinstance(plan, Plan)
    return plan


def epoch_of(environment: Environment) -> float:
    return float(
        getattr(environment.parsed_options, "rces_epoch", 0.0)
        or _state.setdefault("epoch", time.time())
    )


def _exchange_of(plan: Plan, pool: HTTPClientPool) -> tuple[Exchange | None, Readings]:
    """The worker's status endpoint (None: polls go through Locust's session) and the 200 bodies
    it has read, one of each per process."""
    if "exchange" not in _state:
        exchange = None
        if Exchange.direct(plan.base_url):
            headers = {"authorization": plan.sdk_key, plan.environment_header: plan.environment}
            exchange = Exchange(pool.get_client(URL(plan.base_url)), plan.base_url, headers)
        _state["exchange"] = exchange, Readings(plan.configuration_id)
    pair: tuple[Exchange | None, Readings] = _state["exchange"]
    return pair


@events.init_command_line_parser.add_listener  # type: ignore[untyped-decorator]
def _options(parser: LocustArgumentParser) -> None:
    # Filled in by the master (never on a command line, so never in a process list).
    parser.add_argument("--rces-plan", default="", include_in_web_ui=False, help="internal")
    parser.add_argument("--rces-epoch", type=float, default=0.0, include_in_web_ui=False)


class Polling(FastHttpUser):
    """What every poller shares: one connection pool per worker, the plan, recording. A poll goes
    to the pool's client directly (``status_poll``); Locust's session only follows redirects."""

    abstract = True
    client_pool = HTTPClientPool(concurrency=POOL_CONNECTIONS)
    kind = WELL_BEHAVED
    honours_retry_after = True

    def __init__(self, environment: Environment) -> None:
        plan = plan_of(environment)
        self.host = plan.base_url
        self.network_timeout = plan.timeout_s
        self.connection_timeout = plan.timeout_s
        super().__init__(environment)
        self.plan = plan
        self.epoch = epoch_of(environment)
        _state["seq"] += 1
        index = getattr(environment.runner, "worker_index", 0)
        self.instance = f"{plan.run_tag}-{index}-{self.kind}{_state['seq']}"
        self.state = PollerState(plan.cadence_s, plan.jitter_ratio, plan.min_interval_s)
        self.next_at = time.time()
        self.exchange, self.readings = _exchange_of(plan, self.client_pool)
        self.errors = (plan.code_field, plan.message_field, plan.rate_limited_status)

    def wait_time(self) -> float:
        return max(0.0, self.next_at - time.time())

    def send_due(self, rate: float, with_id: bool = True) -> None:
        """This user's own poll planned at ``next_at``, sent in a greenlet of its own (noisy and
        anonymous pollers): the next is planned ``1 / rate`` later whatever the answer time, so
        a slow target does not lower the load offered. A Retry-After, once answered, moves the
        next poll (``honour``)."""
        if time.time() < self.next_at - 0.005:  # a Retry-After came in during the wait
            return
        planned = self.next_at
        self.next_at += 1 / rate
        gevent.spawn_raw(self._poll_at, planned, with_id)  # a bare greenlet: none waits on it

    def _poll_at(self, planned: float, with_id: bool) -> None:
        _, retry = self.poll_as(self.instance, self.state, planned, with_id)
        if retry and self.honours_retry_after:
            self.next_at = max(self.next_at, time.time() + retry)

    def poll_as(
        self, instance: str, state: PollerState, planned: float, with_id: bool = True
    ) -> tuple[int, float | None]:
        """One status poll of ``instance`` planned at ``planned``, recorded; status, Retry-After."""
        sent = time.time()
        extra = state.request_headers()  # a fresh mapping: the last hash, if any
        if with_id:
            extra[self.plan.instance_header] = instance
        answer = None if self.exchange is None else self.exchange.send(extra)
        if answer is None:  # a redirect (or credentials in the base URL): Locust's session
            answer = self._through_locust(extra)
        latency = time.time() - sent
        seen, hint, problem, retry = outcome(answer, state, self.readings, self.errors)
        relay.OUTBOX.polls.append(
            [planned, sent, latency, answer.status, self.kind, instance, seen, hint, problem,
             retry, HOST]
        )  # fmt: skip
        return answer.status, retry

    def _through_locust(self, extra: dict[str, str]) -> Answer:
        """The poll sent through Locust's ``FastHttpSession``, which follows redirects."""
        plan = self.plan
        headers = {"authorization": plan.sdk_key, plan.environment_header: plan.environment}
        with self.client.get(
            STATUS, headers={**headers, **extra}, catch_response=True, name=self.kind
        ) as response:
            status = int(response.status_code or TRANSPORT_ERROR)
            response.success()
            if status == TRANSPORT_ERROR:
                return Answer(status, error=type(response.error).__name__)
            return Answer(
                status,
                response.content or b"",
                response.headers.get("content-type", ""),
                response.headers.get("retry-after"),
            )

    def sleep_until(self, start: float) -> bool:
        """Wait for a phase starting ``start`` s into the run; False once the run is over."""
        self.next_at = max(self.next_at, self.epoch + start)
        return time.time() < self.epoch + self.plan.run_s


class Member:
    """One simulated instance of a shard: its id, its polling state, its next planned poll."""

    __slots__ = ("index", "instance", "next_at", "state")

    def __init__(self, index: int, instance: str, state: PollerState, next_at: float) -> None:
        self.index, self.instance, self.state, self.next_at = index, instance, state, next_at


class Instance(Polling):
    """A shard of the well-behaved fleet: ``plan.shard`` instances, each with its own id and
    state (last hash, hint, Retry-After, backoff), polled open-loop at their planned times by
    one scheduler: a poll is its own greenlet, so a slow answer delays no other instance."""

    weight = 1000

    def on_start(self) -> None:
        plan, now = self.plan, time.time()
        # First polls across the ramp. Locust's master starts users in batches a second apart
        # (spawn_rate users each), not one every ramp_s / users: a shard spreads its first
        # polls over that second, else each batch's first polls all fall in its first
        # ramp_s / users (30 ms for 1,000 users over 30 s) and are sent late as a herd.
        window = min(plan.ramp_s, max(1.0, plan.ramp_s / max(1, plan.users)))
        spread = window / plan.shard
        self.members = [
            Member(
                k,
                f"{self.instance}.{k}",
                PollerState(plan.cadence_s, plan.jitter_ratio, plan.min_interval_s),
                now + k * spread,
            )
            for k in range(plan.shard)
        ]
        self.heap = [(m.next_at, m.index) for m in self.members]
        self.wake = gevent.event.Event()
        self.target = 0.0
        # The shard lives as long as the run: out of the cyclic collector's sight, else each
        # full collection walks every member and its state and every poll due meanwhile is
        # late. Freezing is O(1) (the generations are moved, not walked).
        gc.freeze()

    @task
    def schedule(self) -> None:
        # A poll planned at or after the run's end is never sent: Locust stops the users up to
        # a shape tick (1 s) later, and what such polls measured was that stop, not the fleet.
        end = self.epoch + self.plan.run_s
        while True:
            now = time.time()
            if self.heap and self.heap[0][0] <= now and self.heap[0][0] < end:
                at, index = heapq.heappop(self.heap)
                member = self.members[index]
                if at == member.next_at:  # else a stale entry: the member was rescheduled
                    gevent.spawn_raw(self.poll_member, member)  # bare: cheaper, none joins it
                continue
            due = self.heap[0][0] if self.heap else end
            self.target = due if due < end else end + 60.0
            self.wake.clear()
            self.wake.wait(timeout=max(0.0, self.target - now))

    def poll_member(self, member: Member) -> None:
        status, retry = self.poll_as(member.instance, member.state, member.next_at)
        if status in (200, 304):
            # Planned from the last planned time, but never before this answer came back: a
            # client waits for it, so a slow answer is the target's latency, not a late send.
            member.next_at = max(member.next_at + member.state.next_delay(), time.time())
        else:
            member.next_at = time.time() + member.state.failed(retry)
        heapq.heappush(self.heap, (member.next_at, member.index))
        if member.next_at < self.target:
            self.wake.set()


def _in_window(user: Polling, window: tuple[float, float]) -> bool:
    """Whether ``user`` is inside its phase (seconds from the epoch); before it, it sleeps until
    the phase starts; after it, it is parked past the end of the run."""
    start, end = window
    if time.time() < user.epoch + start:
        user.sleep_until(start)
        return False
    if time.time() >= user.epoch + end:
        user.next_at = user.epoch + user.plan.run_s + 60
        return False
    return True


class Noisy(Polling):
    """Polls far above the declared limit inside its phase, ignoring 429 and Retry-After."""

    fixed_count = 0
    kind = NOISY

    honours_retry_after = False

    @task
    def tick(self) -> None:
        if _in_window(self, self.plan.noisy_window):
            self.send_due(self.plan.noisy_rate)


class Anonymous(Polling):
    """Sends no instance id (one of many servers behind one address), honours Retry-After."""

    fixed_count = 0
    kind = ANONYMOUS

    honours_retry_after = True

    @task
    def tick(self) -> None:
        if _in_window(self, self.plan.anonymous_window):
            self.send_due(self.plan.anonymous_rate, with_id=False)


class Writer(FastHttpUser):
    """Patches the watched configuration every ``write_interval_s`` with the PAT."""

    fixed_count = 0

    def __init__(self, environment: Environment) -> None:
        plan = plan_of(environment)
        self.host = plan.base_url
        self.network_timeout = plan.timeout_s
        self.connection_timeout = plan.timeout_s
        super().__init__(environment)
        self.plan = plan
        self.epoch = epoch_of(environment)
        self.next_at = self.epoch + plan.ramp_s + 1.0
        self.sequence = 0

    def wait_time(self) -> float:
        return max(0.0, self.next_at - time.time())

    @task
    def write(self) -> None:
        plan = self.plan
        if time.time() < self.next_at - 0.01:  # Locust runs a task first, then waits
            return
        if plan.write_interval_s is None or time.time() > self.epoch + plan.run_s - 1:
            self.next_at = self.epoch + plan.run_s + 60
            return
        self.sequence += 1
        body = {
            plan.operations_field: [{"op": "replace", "path": "/loadSeq", "value": self.sequence}]
        }
        headers = {
            "Authorization": f"Bearer {plan.pat}",
            "environment_id": str(plan.environment_id),
            "Content-Type": "application/json",
        }
        path = f"/application/{plan.application_id}/v2/configuration/{plan.configuration_id}"
        started = time.time()
        problem, content_hash = "", ""
        with self.client.request(
            "PATCH", path, data=json.dumps(body), headers=headers, catch_response=True, name="write"
        ) as response:
            status = int(response.status_code or TRANSPORT_ERROR)
            response.success()
            try:
                record = json.loads(response.content or b"")
                content_hash = (
                    str(record.get("contentHash", "")) if isinstance(record, dict) else ""
                )
            except ValueError:
                problem = "patch answer is not JSON"
            if status != 200:
                problem = problem or f"patch answered {status}"
        relay.OUTBOX.writes.append([started, time.time(), status, content_hash, problem])
        self.next_at += plan.write_interval_s


class Ramp(LoadTestShape):
    """The whole fleet started over the ramp, held for the run, then stopped for the drain."""

    def tick(self) -> tuple[int, float, list[type[User]]] | None:
        plan = _state["plan"]
        if plan is None:
            return None
        elapsed = float(self.get_run_time())  # type: ignore[no-untyped-call]
        counts: dict[type[User], int] = {Instance: plan.users, Noisy: plan.noisy}
        counts[Anonymous] = plan.anonymous
        counts[Writer] = 1 if plan.write_interval_s else 0
        classes = [cls for cls, count in counts.items() if count > 0]
        fixed = sum(counts.values()) - plan.users
        if elapsed < plan.run_s:
            return plan.users + fixed, plan.spawn_rate + fixed, classes
        if elapsed < plan.run_s + DRAIN_SECONDS:
            return 0, 10_000.0, classes
        return None


# ------------------------------------------------------------------ master and workers


def _stop_once(_signum: int, _frame: FrameType | None) -> None:
    """The master's first SIGTERM or SIGINT stops the run as Ctrl-C does; later ones are ignored,
    so nothing cuts its result short. (Locust's own SIGTERM handler is installed only once the
    shape has run its course: a SIGTERM during the run would kill the master without a result.)"""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    raise KeyboardInterrupt


@events.init.add_listener  # type: ignore[untyped-decorator]
def _init(environment: Environment, **_: object) -> None:
    runner = environment.runner
    if isinstance(runner, MasterRunner) or runner is None or not isinstance(runner, WorkerRunner):
        path = os.environ.get("RCES_LOAD_PLAN")
        if path:
            with open(path, encoding="utf-8") as file:
                _options_of(environment).rces_plan = file.read()
            plan = plan_of(environment)
            Noisy.fixed_count = plan.noisy
            Anonymous.fixed_count = plan.anonymous
            Writer.fixed_count = 1 if plan.write_interval_s else 0
            _state["master"] = relay.Store()
        if isinstance(runner, MasterRunner):
            store = _state.setdefault("master", relay.Store())
            runner.register_message(relay.MESSAGE, store.received)
            for number in (signal.SIGINT, signal.SIGTERM):
                signal.signal(number, _stop_once)
    if isinstance(runner, WorkerRunner):
        gc.callbacks.append(relay.OUTBOX.gc_timer)
        gevent.spawn(relay.flush_loop, environment, HOST, lambda: _state["plan"] is not None)


@events.test_start.add_listener  # type: ignore[untyped-decorator]
def _test_start(environment: Environment, **_: object) -> None:
    if isinstance(environment.runner, MasterRunner):
        options = _options_of(environment)
        options.rces_epoch = time.time()
        store = _state.setdefault("master", relay.Store())
        store.started = options.rces_epoch
        gevent.spawn(relay.progress_loop, environment, store, plan_of(environment))


@events.quitting.add_listener  # type: ignore[untyped-decorator]
def _quitting(environment: Environment, **_: object) -> None:
    if not isinstance(environment.runner, MasterRunner):
        return
    path = os.environ.get("RCES_LOAD_RESULT")
    store = _state.get("master")
    if path and store is not None:
        store.write_result(path)
