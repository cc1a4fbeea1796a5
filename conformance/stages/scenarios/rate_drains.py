"""The status endpoint's rate-limit drains as the scenarios send and judge them (spec 8), against
the profile's declared bucket (``rate_limit.burst``, ``rate_limit.refill_per_second``).

Buckets are drained open-loop (``traffic.open_loop``) at twice what the declared bucket serves,
over as many connections as the target's latency needs, so the rate the target sees is the
suite's however long it takes to answer. A drain goes on until the evidence is in, not for a
planned time: until a few answers after the first 429 (or, probing another instance, until the
probes that follow it are answered), until the target has served more than the declared bucket
allows over the time it took to answer, or at most ``HORIZON_SECONDS`` (a target answering
no faster than its declared refill shows neither within it, which leaves the drain not
measurable with that figure).

Both directions are judged on the actual send and answer times (``oracles.rate_budget``): no more
served than a correct bucket could serve, with every poll counted at the latest moment the target
could have handled it; and no refusal while a correct bucket, full for a fresh instance id, must
still have held tokens whenever each poll arrived between its send and its answer. A slow
answer only widens those windows, so a slow correct target passes; only a target that answers no
faster than its own declared refill leaves a drain not measurable, with that figure.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from conformance.checks import IndependentChecks, expect, violation
from conformance.drivers.sdk import Snapshots
from conformance.errors import NotMeasurable
from conformance.oracles.header_grammar import Problem, retry_after
from conformance.oracles.rate_budget import Window, early_refusal
from conformance.traffic.delivery import delivery
from conformance.traffic.open_loop import Offer, Planned, Record, reply_of, send, uniform
from conformance.traffic.token_bucket import Limit
from conformance.traffic.transcript import Reply

MAX_WAIT_SECONDS = 10.0
DRAIN_SECONDS = 1.0  # the declared burst is offered over this long, on top of twice the refill
EXCESS = 2.0  # a drain offers this many times what the declared bucket serves
HORIZON_SECONDS = 15.0  # the longest a drain goes on without evidence either way
TAIL_ANSWERS = 10  # answers read after the first 429 before a drain stops
EARLY_CHECKED = 20  # refusals (the first ones sent) checked against the declared floor
MARGIN_TOKENS = 1.0  # rounding between the target's clock and ours
OVERLAP_WAIT_SECONDS = 0.1  # a drain that waited longer for a free connection was not alone
DRAIN = "drain"  # the tag of a drain's polls (others probe or pace)


def limited_status(snapshots: Snapshots) -> int:
    """The status of a rate-limit refusal (``errors.rate_limited_status``: 429 by default,
    RFC 6585; the spec does not show it). Every "429" below means this status."""
    return snapshots.profile.errors.rate_limited_status


def declared(snapshots: Snapshots) -> Limit:
    rate = snapshots.profile.rate_limit
    return Limit(rate.burst, rate.refill_per_second)


def drain_rate(snapshots: Snapshots) -> float:
    """Polls per second that offer ``EXCESS`` times the declared budget over ``DRAIN_SECONDS``."""
    limit = declared(snapshots)
    return EXCESS * (limit.burst / DRAIN_SECONDS + limit.refill_per_second)


def answer_time(snapshots: Snapshots) -> float:
    """The target's answer time now (seconds): one poll in a bucket of its own."""
    reply = snapshots.status(instance_id=snapshots.client.new_instance_id())
    return reply.exchange.elapsed_ms / 1000


Caller = tuple[str, str]  # an SDK key and the environment it asks for


def poll(
    snapshots: Snapshots,
    at: float,
    instance_id: str | None,
    tag: str = DRAIN,
    caller: Caller | None = None,
) -> Planned:
    names = snapshots.profile.headers
    key, environment = caller or (snapshots.key("development").key, "development")
    headers = {"authorization": key, names.environment: environment}
    if instance_id is not None:
        headers[names.instance_id] = instance_id
    return Planned(at, "/sdk/v2/status", headers, tag)


def sharing_callers(snapshots: Snapshots) -> list[Caller]:
    """The callers whose polls without an instance id the declared scope puts in one bucket
    (spec 8: "all servers behind one egress IP share a single bucket"): under ``rate_limit.scope:
    instance``, every SDK key of the profile, each in the first environment it reaches; under
    ``key-and-instance`` (a bucket per key, the default), the development key alone."""
    first = (snapshots.key("development").key, "development")
    if snapshots.profile.rate_limit.scope != "instance":
        return [first]
    callers = [first]
    for entry in snapshots.profile.credentials.sdk_keys:
        if entry.environments and entry.key not in {key for key, _ in callers}:
            callers.append((entry.key, entry.environments[0]))
    return callers


def drain_plan(
    snapshots: Snapshots, instance_id: str | None, callers: Sequence[Caller] = ()
) -> list[Planned]:
    """The drain's polls, taking turns among ``callers`` (default: the development key)."""
    count = math.ceil(drain_rate(snapshots) * HORIZON_SECONDS)
    turns: list[Caller | None] = [*callers] or [None]
    return [
        poll(snapshots, at, instance_id, caller=turns[n % len(turns)])
        for n, at in enumerate(uniform(count, HORIZON_SECONDS))
    ]


def declared_allows(snapshots: Snapshots, seconds: float) -> float:
    """The most polls the declared bucket serves over ``seconds`` from full."""
    limit = declared(snapshots)
    return limit.burst + limit.refill_per_second * max(0.0, seconds) + MARGIN_TOKENS


@dataclass(frozen=True)
class Traffic:
    """What a rate-limit test sent, for it to judge: its open-loop run and, for the burst test,
    the poll after the Retry-After of the freshest 429 that said when."""

    offered: Offer
    again: Reply | None = None


@dataclass
class Evidence:
    """Watches a drain's answers as they come (``until`` of the open-loop sender) and says when
    the evidence is in: a few answers after the first 429, more served than the declared bucket
    allows, or an answer that is neither 200 nor 429 (else the drain runs to its horizon)."""

    snapshots: Snapshots
    first_send: float = math.inf
    served: int = 0
    latest_served: float = 0.0
    after_refusal: int = 0
    hold: Callable[[], bool] | None = None  # while it answers True, keep draining past the tail
    limited: threading.Event = field(default_factory=threading.Event)  # a 429 was answered
    side_by_side: bool = False  # sent beside other drains: stop at once when crowded

    def __call__(self, record: Record) -> bool:
        if record.planned.tag != DRAIN or record.sent is None:
            return False
        if self.side_by_side and crowded(self.snapshots, record):
            return True  # the target or its path does not keep up: sent again alone
        self.first_send = min(self.first_send, record.sent)
        refusal = limited_status(self.snapshots)
        if record.status not in (200, refusal):
            return True
        if record.status == refusal:
            self.limited.set()
        if self.limited.is_set():
            self.after_refusal += 1
            return self.after_refusal > TAIL_ANSWERS and not (self.hold and self.hold())
        self.served += 1
        self.latest_served = max(self.latest_served, record.answered or 0.0)
        span = self.latest_served - self.first_send
        return self.served > declared_allows(self.snapshots, span) + MARGIN_TOKENS


def crowded(snapshots: Snapshots, record: Record) -> bool:
    """A poll sent beside other drains that shows the target (or its path) not keeping up: it
    waited past ``OVERLAP_WAIT_SECONDS`` for a free connection, or was answered neither 200 nor
    429 (no answer included)."""
    ended = record.answered is not None or record.error is not None  # an answer, or none will come
    answered = record.status in (200, limited_status(snapshots))
    return record.waited > OVERLAP_WAIT_SECONDS or (ended and not answered)


def drain(
    snapshots: Snapshots,
    instance_id: str | None,
    what: str,
    latency: float,
    evidence: Evidence | None = None,
    callers: Sequence[Caller] = (),
) -> Offer:
    watch = evidence or Evidence(snapshots)
    plan = drain_plan(snapshots, instance_id, callers)
    return send(snapshots.client, plan, latency, what, until=watch)


def windows(records: Sequence[Record]) -> list[Window]:
    return [Window(r.sent or 0.0, r.answered or r.sent or 0.0) for r in records]


def judge_drain(
    snapshots: Snapshots,
    offered: Offer,
    ids: Sequence[str],
    what: str,
    fresh: Sequence[str] = (),
    independent: IndependentChecks | None = None,
) -> list[Record]:
    """The drain's refusals, after judging it: every poll answered 200 or 429, none served
    beyond what the declared bucket allows, at least one refused, and (``fresh``: the ids that
    judge a bucket full when the drain began) none refused while the declared bucket must still
    have held tokens; that last check goes to ``independent`` when given (an early refusal
    still shows the limit enforced, so the rest of the test goes on)."""
    drained = sorted(offered.sent(DRAIN), key=lambda r: r.sent or 0.0)
    refusal = limited_status(snapshots)
    bad = [r for r in drained if r.status not in (200, refusal)]
    if bad:
        raise violation(
            ids,
            f"{what}: polls were not answered 200 or {refusal}",
            f"HTTP 200, or {refusal} beyond the budget (errors.rate_limited_status), for every "
            "poll",
            f"{len(bad)} of {len(drained)}: first {status_of(bad[0])}; {offered.describe()}",
            reply_of(snapshots.client, bad[0]) if bad[0].status is not None else None,
        )
    first = drained[0].sent or 0.0
    served = [r for r in drained if r.status == 200]
    refused = [r for r in drained if r.status == refusal]
    limit = declared(snapshots)
    latest = max((r.answered or 0.0) for r in served) if served else first
    allowed = declared_allows(snapshots, latest - first)
    expect(
        len(served) <= allowed,
        ids,
        f"{what}: more polls were served than the declared bucket holds",
        f"at most {allowed:.0f} served: burst {limit.burst:g} + {limit.refill_per_second:g}/s "
        f"over {latest - first:.2f}s (first send to the last served answer)",
        f"{len(served)} served of {len(drained)}; {offered.describe()}",
        reply_of(snapshots.client, refused[0] if refused else served[-1]),
    )
    if not refused:
        span = latest - first
        over_budget = math.floor(declared_allows(snapshots, DRAIN_SECONDS)) + 1
        load = delivery(offered, over_budget, DRAIN_SECONDS)
        if not load.delivered:  # by send timestamps: what left, not what was planned
            raise NotMeasurable(
                f"{what}: the suite did not offer more than the declared budget: {load.figures()}",
                ids,
            )
        raise NotMeasurable(
            f"{what}: no 429 and none due in {HORIZON_SECONDS:g}s: the target answered "
            f"{len(served)} polls in {span:.2f}s ({len(served) / max(span, 1e-9):.1f}/s), too "
            f"close to its declared refill of {limit.refill_per_second:g}/s for its bucket "
            f"(burst {limit.burst:g}) to empty within the drain ({offered.describe()})",
            ids,
        )
    if fresh:
        spans = windows(drained)
        positions = [n for n, r in enumerate(drained) if r.status == refusal][:EARLY_CHECKED]
        early = early_refusal(limit, spans, positions, first)
        if early is not None:
            broken = violation(
                fresh,
                f"{what}: a poll was refused before the declared bucket was spent",
                f"every poll served while a bucket of burst {limit.burst:g} refilling at "
                f"{limit.refill_per_second:g}/s, full for a fresh instance id, holds a token",
                f"{early.describe(limit, spans, first)}; {offered.describe()}",
                reply_of(snapshots.client, drained[early.index]),
            )
            if independent is None:
                raise broken
            independent.broken.append(broken)
        if independent is not None:
            independent.checked.extend(fresh)
    return refused


def status_of(record: Record) -> str:
    return f"no answer ({record.error})" if record.status is None else f"HTTP {record.status}"


def retry_after_seconds(value: str | None) -> float | None:
    """The wait a ``Retry-After`` asks for, by its RFC 9110 grammar (None: absent or broken)."""
    if value is None:
        return None
    parsed = retry_after(value)
    return None if isinstance(parsed, Problem) else parsed


def retry_after_problem(value: str | None) -> str:
    if value is None:
        return "no Retry-After"
    parsed = retry_after(value)
    return str(parsed) if isinstance(parsed, Problem) else ""


def wait_out(
    snapshots: Snapshots, refused: Sequence[Record], keys: Sequence[str], instance: str | None
) -> None:
    """Let a drained bucket refill before anyone uses it again (the bucket ``keys`` spend with
    ``instance``, as the declared scope keeps it)."""
    delay = retry_after_seconds(refused[-1].header("retry-after")) if refused else None
    rate = snapshots.profile.rate_limit
    delay = min(MAX_WAIT_SECONDS, delay if delay is not None else 1.0)
    time.sleep(max(delay, 1.0 / rate.refill_per_second))
    for bucket in {rate.bucket(key, instance) for key in keys}:
        snapshots.client.forget_bucket(bucket)
