"""Open-loop load: requests sent at planned times, whatever the target's answer time.

A closed loop (send, wait for the answer, send the next) lets the target set the pace: its
latency turns a planned burst into round trips over a few streams, spread out long enough for a
rate limit to refill faster than it drains. ``offer`` sends each planned request at its own
time on whichever keep-alive connection is idle, so the arrival rate is the suite's:

- the pool starts as large as the plan needs at the latency the caller measured (the most
  requests planned inside any span of that length, plus a margin), every connection opened
  before the first send;
- the pool grows ahead of need, up to ``cap``: whenever a send leaves fewer than
  ``SPARE_CONNECTIONS`` idle, one more is opened (a target that slows down under load holds
  every connection at once, so waiting for one to come back before opening the next would put
  the burst behind its plan); a request still due while every connection is busy grows it too;
- every request is recorded: planned and actual send time, answer time, status, headers, body.

Judgements use what was offered, the actual send and answer times, against the profile's
declared figures (``traffic.delivery``: whether the load reached the target at all). A request
can leave late for two reasons, told apart per record for the figures: no connection was free at
its time (``Record.waited``: each was held by the target, answering slowly), or one was (or the
suite had asked for a new one) and the suite ran late (``Record.own_lag``: its own CPU, opening
a connection it grew included). ``Offer.lag``, ``Offer.own_lag``, ``Offer.waited`` and
``Offer.offered_rate`` give them. The plan and the records (``Planned``, ``Record``, ``Offer``)
are ``load_records``'s, exported here with the pool that fills them.
"""

from __future__ import annotations

import bisect
import contextlib
import http.client
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import SplitResult, urlsplit

import httpx

from conformance.profile.defaults import DEFAULTS
from conformance.report.body_cut import cut
from conformance.traffic.client import Client
from conformance.traffic.load_records import Offer, Planned, Record
from conformance.traffic.transcript import Reply
from conformance.verdict.evidence import Exchange

USER_AGENT = "rces-conformance"
POOL_MARGIN = 1.5  # connections opened per request expected in flight
MIN_CONNECTIONS = 4  # never fewer: callers without an instance id must come from several
GROW_LAG_SECONDS = 0.002  # a request this late for want of an idle connection grows the pool
SPARE_CONNECTIONS = 4  # a send leaving fewer idle connections than this opens one more
DEFAULT_CAP = 256
READ_CHUNK = 65536
START_LEAD_SECONDS = 0.02  # between the pool being ready and the first planned send

# What callers plan and read back (``load_records``) is part of this module's interface.
__all__ = [
    "DEFAULT_CAP",
    "MIN_CONNECTIONS",
    "Offer",
    "Planned",
    "Record",
    "offer",
    "pool_size",
    "reply_of",
    "send",
    "transcript_entry",
    "uniform",
]


def uniform(count: int, seconds: float, start: float = 0.0) -> list[float]:
    """``count`` send times spread evenly over ``seconds`` from ``start``."""
    if count <= 1:
        return [start] * count
    step = seconds / count
    return [start + step * n for n in range(count)]


def pool_size(times: Sequence[float], latency: float, cap: int) -> int:
    """Connections a plan needs if each answer takes ``latency``: the most sends inside any span
    of that length, with a margin."""
    ordered = sorted(times)
    busiest = 1
    for start, moment in enumerate(ordered):
        busiest = max(busiest, bisect.bisect_right(ordered, moment + latency) - start)
    return max(MIN_CONNECTIONS, min(cap, math.ceil(busiest * POOL_MARGIN) + 1))


@dataclass
class _Run:
    """Shared state of one ``offer``: the plan, the next unclaimed request, the results."""

    plan: Sequence[Planned]
    start: float
    cap: int
    target: SplitResult
    timeout: float
    max_bytes: int
    max_seconds: float
    results: list[Record | None]
    order: list[int]  # plan indexes by planned time
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_index: int = 0
    workers: list[threading.Thread] = field(default_factory=list)
    cap_reached: bool = False
    go: threading.Event = field(default_factory=threading.Event)  # set once ``start`` is final
    in_flight: int = 0  # connections not free: opening, or a request sent and not answered
    until: Callable[[Record], bool] | None = None
    stopped: bool = False

    def finished(self, record: Record) -> None:
        """Keep ``record``; stop claiming once ``until`` holds for an answer (evidence, not
        the plan, ends the offer)."""
        with self.lock:
            self.results[record.index] = record
            if self.until is not None and not self.stopped and self.until(record):
                self.stopped = True

    def busy(self, change: int) -> None:
        with self.lock:
            self.in_flight += change

    def sending(self) -> None:
        """One more connection busy; opens another ahead of need when fewer than
        ``SPARE_CONNECTIONS`` stay idle (the pool never waits for the target to free one)."""
        with self.lock:
            self.in_flight += 1
            spare = len(self.workers) - self.in_flight >= SPARE_CONNECTIONS
            worker = None if spare else self._opened()
        if worker is not None:
            worker.start()

    def claim(self) -> int | None:
        """The plan index of the next request due (in time order), or None when all are taken."""
        with self.lock:
            if self.stopped or self.next_index >= len(self.order):
                return None
            index = self.order[self.next_index]
            self.next_index += 1
            return index

    def grow(self) -> None:
        """One more connection when every other one has a request in flight (a late send with
        an idle connection is the suite's own CPU, which more threads would not help), unless
        the pool is at its cap."""
        with self.lock:
            if self.in_flight < len(self.workers) - 1:
                return
            worker = self._opened()
            self.cap_reached = self.cap_reached or worker is None
        if worker is not None:
            worker.start()

    def _opened(self) -> threading.Thread | None:
        """A new worker counted busy until its connection is open (None at the cap); the
        caller holds the lock and starts it after releasing it."""
        if len(self.workers) >= self.cap:
            return None
        worker = _worker(self, len(self.workers), None)
        self.workers.append(worker)
        self.in_flight += 1
        return worker


def _connect(run: _Run) -> http.client.HTTPConnection:
    target = run.target
    kind = http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
    connection = kind(target.hostname or "", target.port, timeout=run.timeout)
    connection.connect()
    return connection


def _worker(run: _Run, number: int, ready: threading.Barrier | None) -> threading.Thread:
    asked = time.monotonic()  # a connection grown on the way: its opening is the suite's time

    def loop() -> None:
        connection: http.client.HTTPConnection | None = None
        try:
            connection = _connect(run)
        except OSError:
            connection = None
        free_at = time.monotonic() if ready is not None else asked
        run.busy(-1)  # open (or failed: the first request tries again)
        if ready is not None:
            # too slow to connect: it sends on a fresh connection when it can
            with contextlib.suppress(threading.BrokenBarrierError):
                ready.wait()
        run.go.wait()
        try:
            while (index := run.claim()) is not None:
                planned = run.plan[index]
                due = run.start + planned.at
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                    if run.stopped:
                        break
                elif -wait > GROW_LAG_SECONDS:
                    run.grow()  # perhaps every connection was busy when this one came due
                run.sending()
                try:
                    connection, record = _exchange(
                        run, connection, index, planned, due, number, free_at
                    )
                finally:
                    run.busy(-1)
                free_at = time.monotonic()
                run.finished(record)
        finally:
            if connection is not None:
                connection.close()

    return threading.Thread(target=loop, name=f"rces-open-loop-{number}", daemon=True)


def _exchange(
    run: _Run,
    connection: http.client.HTTPConnection | None,
    index: int,
    planned: Planned,
    due: float,
    number: int,
    free_at: float,
) -> tuple[http.client.HTTPConnection | None, Record]:
    """Send one request on ``connection`` (reopened if needed) and read its whole answer."""
    sent = None
    try:
        if connection is None:
            connection = _connect(run)
        sent = time.monotonic()
        connection.request(
            "GET",
            run.target.path.rstrip("/") + planned.path,
            headers={"user-agent": USER_AGENT, **planned.headers},
        )
        response = connection.getresponse()
        body = bytearray()
        while chunk := response.read(READ_CHUNK):
            body += chunk
            if len(body) > run.max_bytes or time.monotonic() - sent > run.max_seconds:
                raise OSError(f"answer over {run.max_bytes} bytes or {run.max_seconds:g}s")
        answered = time.monotonic()
        if response.will_close:
            connection.close()
            connection = None
        return connection, Record(
            index,
            planned,
            due,
            sent,
            answered,
            response.status,
            tuple(response.getheaders()),
            bytes(body),
            number,
            ready=free_at,
        )
    except Exception as error:  # any failure is the record's, never the run's
        if connection is not None:
            connection.close()
        return None, Record(
            index,
            planned,
            due,
            sent,
            None,
            None,
            (),
            b"",
            number,
            f"{type(error).__name__}",
            ready=free_at,
        )


def offer(
    base_url: str,
    plan: Sequence[Planned],
    *,
    latency: float,
    cap: int = DEFAULT_CAP,
    timeout: float = 10.0,
    max_bytes: int = DEFAULTS["responses"]["max_bytes"],
    max_seconds: float = DEFAULTS["responses"]["max_seconds"],
    until: Callable[[Record], bool] | None = None,
) -> Offer:
    """Send ``plan`` open-loop; ``latency``: the answer time measured just before (seconds);
    answers are bounded as ``responses`` in the profile (``send`` passes the target's).
    ``until``: called with each finished record (one at a time); once it answers True no
    further planned request leaves (those in flight are still read)."""
    if not plan:
        return Offer((), 0.0, 0, False)
    times = [p.at for p in plan]
    size = pool_size(times, max(latency, 0.0), cap)
    ready = threading.Barrier(size + 1)
    run = _Run(
        plan=plan,
        start=0.0,
        cap=cap,
        target=urlsplit(base_url),
        timeout=timeout,
        max_bytes=max_bytes,
        max_seconds=max_seconds,
        results=[None] * len(plan),
        order=sorted(range(len(plan)), key=lambda n: plan[n].at),
        in_flight=size,
        until=until,
    )
    run.workers = [_worker(run, n, ready) for n in range(size)]
    for worker in run.workers:
        worker.start()
    with contextlib.suppress(threading.BrokenBarrierError):  # the late ones connect when due
        ready.wait(timeout=timeout)
    run.start = time.monotonic() + START_LEAD_SECONDS
    run.go.set()
    index = 0
    while index < len(run.workers):  # the list grows while we wait
        run.workers[index].join()
        index += 1
    span = max(times) - min(times)
    records = tuple(r for r in run.results if r is not None)
    return Offer(
        records=records,
        planned_rate=len(plan) / span if span > 0 else float(len(plan)),
        connections=len(run.workers),
        cap_reached=run.cap_reached,
        stopped_early=run.stopped,
    )


def send(
    client: Client,
    plan: Sequence[Planned],
    latency: float,
    what: str,
    cap: int = DEFAULT_CAP,
    until: Callable[[Record], bool] | None = None,
) -> Offer:
    """``offer`` to the client's target under its timeouts and response bounds; the figures
    go into the client's transcript."""
    bounds = client.profile.responses
    result = offer(
        client.base_url,
        plan,
        latency=latency,
        cap=cap,
        timeout=client.timeout.read or 10.0,
        max_bytes=bounds.max_bytes,
        max_seconds=bounds.max_seconds,
        until=until,
    )
    client.transcript.add(transcript_entry(client, result, what))
    return result


def transcript_entry(client: Client, result: Offer, what: str) -> Exchange:
    """The run in the transcript: its last answer, a real exchange, under a URL that says what
    the run was (``... (open loop, one instance: 43 of 43 requests sent, answered 200 x43; the last
    answer)``). With no answer at all, the last request sent, and how long it went unanswered.
    The figures (rates, lag, answer times) are in the verdict's text (``Offer.describe``)."""
    answered = [r for r in result.records if r.status is not None]
    tried = answered or result.sent() or list(result.records)
    if not tried:
        return Exchange("GET", client.base_url, {}, None, None, {}, None, 0.0)
    record = tried[-1]
    exchange = reply_of(client, record).exchange
    which = "the last answer" if answered else "the last request, unanswered"
    which = which if record.sent is not None else "no connection could be opened to send it"
    if answered:
        waited = (record.answered or 0.0) - (record.sent or 0.0)
    else:  # unanswered at least until the last thing the run saw
        seen = [t for r in result.records for t in (r.sent, r.answered) if t is not None]
        waited = max(seen, default=0.0) - (record.sent or max(seen, default=0.0))
    return replace(
        exchange,
        url=f"{exchange.url} ({result.heading(what)}; {which})",
        elapsed_ms=waited * 1000,
    )


def reply_of(client: Client, record: Record) -> Reply:
    """One record as a ``Reply`` (redacted exchange and curl line), to serve as evidence."""
    redact = client.redactor
    body = record.body.decode("utf-8", errors="replace")
    exchange = Exchange(
        method="GET",
        url=redact.text(client.base_url + record.planned.path),
        request_headers=redact.headers(record.planned.headers.items()),
        request_body=None,
        status=record.status,
        response_headers=redact.headers(record.headers),
        response_body=cut(redact.text(body)) if body else None,
        elapsed_ms=(record.latency or 0.0) * 1000,
    )
    return Reply(
        record.status or 0,
        httpx.Headers(list(record.headers)),
        record.body,
        exchange,
        client.curl(exchange),
    )
