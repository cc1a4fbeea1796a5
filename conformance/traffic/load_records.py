"""A plan of open-loop requests and what sending it recorded: ``Planned``, ``Record``, ``Offer``
(the figures a judgement reads: offered rate, lag, the suite's own lag, waits, latencies)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Planned:
    """One request of a plan: when (seconds after the start), where, and a tag for judging."""

    at: float
    path: str
    headers: Mapping[str, str]
    tag: str = ""


@dataclass(frozen=True)
class Record:
    """What happened to one planned request. Times are ``time.monotonic()`` seconds."""

    index: int
    planned: Planned
    scheduled: float
    sent: float | None  # None: never sent (no connection could be opened)
    answered: float | None  # None: no complete answer
    status: int | None
    headers: tuple[tuple[str, str], ...]
    body: bytes
    connection: int
    error: str | None = None
    ready: float | None = None  # when its connection was free (or asked for, when grown)

    @property
    def waited(self) -> float:
        """How long it waited for a free connection past its planned time (0 when one was free):
        every connection was held by an unanswered request (a grown one counts from when the
        suite asked for it: its opening is the suite's own time)."""
        if self.sent is None or self.ready is None:
            return 0.0
        return max(0.0, min(self.ready, self.sent) - self.scheduled)

    @property
    def own_lag(self) -> float:
        """How late it left once a connection was free: the suite's own CPU."""
        return max(0.0, self.lag - self.waited)

    @property
    def lag(self) -> float:
        """How late the request left against its plan (0 when on time)."""
        return 0.0 if self.sent is None else max(0.0, self.sent - self.scheduled)

    @property
    def latency(self) -> float | None:
        if self.sent is None or self.answered is None:
            return None
        return self.answered - self.sent

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)


@dataclass(frozen=True)
class Offer:
    """The outcome of one open-loop run, in plan order."""

    records: tuple[Record, ...]
    planned_rate: float  # requests per second the plan asked for (over its whole span)
    connections: int  # the pool's final size
    cap_reached: bool  # the pool hit ``cap`` while a request was due: the suite sent late
    stopped_early: bool = False  # ``until`` held: the rest of the plan was never sent

    def sent(self, tag: str | None = None) -> list[Record]:
        return [
            r for r in self.records if r.sent is not None and (tag is None or r.planned.tag == tag)
        ]

    @property
    def span(self) -> float:
        """Seconds from the first actual send to the last."""
        times = [r.sent for r in self.records if r.sent is not None]
        return max(times) - min(times) if len(times) > 1 else 0.0

    @property
    def offered_rate(self) -> float:
        """Requests per second actually sent (over the actual span)."""
        count = len(self.sent())
        return count / self.span if self.span > 0 else float(count)

    @property
    def lag(self) -> float:
        """The latest any request left against its plan, in seconds."""
        return max((r.lag for r in self.records), default=0.0)

    @property
    def own_lag(self) -> float:
        """The latest any request left once a connection was free for it: the suite's CPU."""
        return max((r.own_lag for r in self.records), default=0.0)

    @property
    def waited(self) -> float:
        """The longest any request waited for a free connection past its planned time."""
        return max((r.waited for r in self.records), default=0.0)

    def latencies(self) -> list[float]:
        return sorted(r.latency for r in self.records if r.latency is not None)

    def statuses(self) -> str:
        counts = Counter("no answer" if r.status is None else str(r.status) for r in self.records)
        return ", ".join(f"{status} x{n}" for status, n in sorted(counts.items()))

    def describe(self) -> str:
        """The figures: planned vs offered rate, lag, pool, answer times, statuses."""
        answered = self.latencies()
        median = answered[len(answered) // 2] if answered else math.nan
        worst = answered[-1] if answered else math.nan
        return (
            f"offered {len(self.sent())} of {len(self.records)} planned requests"
            f"{' (the rest not sent: the evidence was in)' if self.stopped_early else ''} at "
            f"{self.offered_rate:.0f}/s ({self.planned_rate:.0f}/s planned) over "
            f"{self.span:.2f}s; latest send {self.lag * 1000:.0f} ms behind plan (waits for a "
            f"free connection up to {self.waited * 1000:.0f} ms, own CPU up to "
            f"{self.own_lag * 1000:.0f} ms); "
            f"{self.connections} connections{' (cap reached)' if self.cap_reached else ''}; "
            f"answers in {median * 1000:.0f} ms median, {worst * 1000:.0f} ms worst; "
            f"statuses {self.statuses()}"
        )

    def heading(self, what: str) -> str:
        """What the run was, in a server author's words: ``open loop, one instance: 43 of 43
        requests sent, answered 200 x43``."""
        answers = Counter(r.status for r in self.records if r.status is not None)
        answered = ", ".join(f"{status} x{n}" for status, n in sorted(answers.items()))
        return f"open loop, {what}: {len(self.sent())} of {len(self.records)} requests sent, " + (
            f"answered {answered}" if answered else "none answered"
        )
