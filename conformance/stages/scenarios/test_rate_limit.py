"""Scenarios: the status endpoint's per-server rate limit (spec 8), judged both ways against the
profile's declared bucket (``rate_limit.burst``, ``rate_limit.refill_per_second``): how a drain
is sent and judged is ``rate_drains``; the per-instance test runs first, and once it has shown
each instance id a bucket of its own, the other drains go out side by side (``side_by_side``).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from functools import partial

import pytest

from conformance.checks import IndependentChecks, expect, violation
from conformance.drivers.sdk import Snapshots
from conformance.errors import NotMeasurable
from conformance.oracles.rate_budget import early_refusal
from conformance.stages.scenarios.rate_drains import (
    DRAIN,
    HORIZON_SECONDS,
    MAX_WAIT_SECONDS,
    OVERLAP_WAIT_SECONDS,
    Evidence,
    Traffic,
    answer_time,
    crowded,
    declared,
    drain,
    judge_drain,
    limited_status,
    poll,
    retry_after_problem,
    retry_after_seconds,
    sharing_callers,
    status_of,
    wait_out,
    windows,
)
from conformance.stages.scenarios.side_by_side import SideBySide
from conformance.traffic.open_loop import Offer, Record, reply_of, send, uniform
from conformance.traffic.token_bucket import Limit
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement
pytestmark = pytest.mark.serial(spends=True)  # drains buckets: nothing else in flight
PROBES = 5  # polls of a fresh instance while the drained one is refused
SPARE_SHARE = 0.1  # of the burst, left unspent by the within-budget run
STEADY_SHARE = 0.8  # of the refill rate, the within-budget run's steady pace
SLOW_SHARE = 0.5  # a refill this much slower than declared must show within the steady part


@dataclass(frozen=True)
class Probe:
    sent: float
    answered: float
    reply: Reply


@requirement("LIMIT-RATE-PER-INSTANCE")
def test_each_instance_has_its_own_bucket(
    request: pytest.FixtureRequest, snapshots: Snapshots
) -> None:
    """Drain instance A; once A is refused, whenever that comes, a fresh instance B (its id A's
    but for the last character) polls a few times while A's drain goes on.

    B's own bucket is full, so none of B's polls may be refused. Were B sharing A's bucket, it
    would be refused like A: A's polls keep arriving many times faster than the bucket refills,
    so a shared bucket has about one token in ``EXCESS * (burst + refill) / refill`` polls.
    Passed, with its drain sent as planned, it lets the other drains of this module go out side
    by side (``side_by_side``); so it runs first of them."""
    ids = ("LIMIT-RATE-PER-INSTANCE",)
    latency = answer_time(snapshots)
    # A and B differ only in their last character: the scope is the whole id (spec 8), so a
    # bucket keyed by any part of it (a prefix) is shared here and refuses B like A
    shared = snapshots.client.new_instance_id()
    first, other = f"{shared}-a", f"{shared}-b"
    probes: list[Probe] = []
    probing_done = threading.Event()
    evidence = Evidence(snapshots, hold=lambda: not probing_done.is_set())
    outcome: list[Offer] = []
    drainer = threading.Thread(
        target=lambda: outcome.append(drain(snapshots, first, "instance A", latency, evidence)),
        daemon=True,
    )
    drainer.start()
    try:
        if evidence.limited.wait(HORIZON_SECONDS + snapshots.profile.responses.max_seconds):
            for _ in range(min(PROBES, max(1, int(declared(snapshots).burst) - 1))):
                sent = time.monotonic()
                reply = snapshots.status(instance_id=other, allow_rate_limit=True, pace=False)
                probes.append(Probe(sent, time.monotonic(), reply))
    finally:
        probing_done.set()
        drainer.join()
    offered = outcome[0]
    if not probes:
        raise NotMeasurable(
            f"instance A was never limited (see LIMIT-RATE-ENFORCED): {offered.describe()}"
        )
    still_refused = [
        r
        for r in offered.sent(DRAIN)
        if r.status == limited_status(snapshots) and (r.sent or 0.0) >= probes[0].sent
    ]
    if not still_refused:
        raise NotMeasurable(
            f"instance A was not refused again while B probed (its drain ended or refilled): "
            f"{offered.describe()}"
        )
    turned_away = [p for p in probes if p.reply.status != 200]
    if turned_away:
        raise violation(
            ids,
            "another instance id was limited with the drained one",
            f"{len(probes)} polls of a fresh instance id served (its own, full bucket) while "
            "the drained instance was refused",
            f"{len(turned_away)} of {len(probes)} not served, first "
            f"{turned_away[0].reply.describe()}; {offered.describe()}",
            turned_away[0].reply,
        )
    if not offered.cap_reached and offered.waited <= OVERLAP_WAIT_SECONDS:
        SIDE_BY_SIDE.independent(request)  # and the drain went out as planned: room for more


def burst_traffic(snapshots: Snapshots, alone: bool) -> Traffic:
    """One instance id drained, then (when a 429 said when, within ``MAX_WAIT_SECONDS``) one
    poll of it after the freshest such 429's Retry-After."""
    instance = snapshots.client.new_instance_id()
    watch = Evidence(snapshots, side_by_side=not alone)
    offered = drain(snapshots, instance, "one instance", answer_time(snapshots), watch)
    timed = [
        r
        for r in offered.sent(DRAIN)
        if r.status == limited_status(snapshots)
        and retry_after_seconds(r.header("retry-after")) is not None
    ]
    if not timed:
        return Traffic(offered)
    last = max(timed, key=lambda r: r.answered or 0.0)  # the freshest word on a token
    delay = retry_after_seconds(last.header("retry-after"))
    if delay is None or delay > MAX_WAIT_SECONDS or last.answered is None:
        return Traffic(offered)
    time.sleep(max(0.0, last.answered + delay + 0.05 - time.monotonic()))
    again = snapshots.client.status(
        key=snapshots.key("development").key,
        environment="development",
        instance_id=instance,
        allow_rate_limit=True,
        pace=False,
    )
    return Traffic(offered, again)


@requirement(
    "LIMIT-RATE-ENFORCED",
    "LIMIT-RATE-WITHIN-BUDGET",
    "LIMIT-RATE-429-RETRY-AFTER",
    "LIMIT-RATE-RECOVERS",
)
def test_burst_is_limited_and_recovers(
    request: pytest.FixtureRequest, snapshots: Snapshots
) -> None:
    traffic = SIDE_BY_SIDE.take(request, snapshots)
    offered = traffic.offered
    # Retry-After and the budget's figures are production conventions (a profile may leave them
    # undeclared: judged at the drop-in level): a miss of either stops nothing else, so the
    # limit still reads as enforced and the recovery is judged on the 429s that said when.
    with IndependentChecks() as independent:
        refused = judge_drain(
            snapshots,
            offered,
            ("LIMIT-RATE-ENFORCED",),
            "one instance id",
            fresh=("LIMIT-RATE-WITHIN-BUDGET",),
            independent=independent,
        )
        unusable = [r for r in refused if retry_after_seconds(r.header("retry-after")) is None]
        timed = [r for r in refused if r not in unusable]
        independent.checked.append("LIMIT-RATE-ENFORCED")  # judge_drain raised had it broken
        broken = {i for v in independent.broken for i in v.requirement_ids}
        held = ("LIMIT-RATE-ENFORCED", "LIMIT-RATE-WITHIN-BUDGET")
        drained = [i for i in held if i not in broken]
        independent.check(
            not unusable,
            ("LIMIT-RATE-429-RETRY-AFTER",),
            "a 429 carries no usable Retry-After",
            "Retry-After on every 429: delay-seconds (digits) or an IMF-fixdate (RFC 9110 10.2.3)",
            f"{len(unusable)} of {len(refused)} 429s; "
            f"{retry_after_problem(unusable[0].header('retry-after')) if unusable else ''}",
            reply_of(snapshots.client, unusable[0]) if unusable else None,
        )
        if not timed:
            raise NotMeasurable(
                f"no 429 of {len(refused)} said when to retry: no Retry-After to wait out",
                ("LIMIT-RATE-RECOVERS",),
                (*drained, *([] if unusable else ["LIMIT-RATE-429-RETRY-AFTER"])),
            )
        last = max(timed, key=lambda r: r.answered or 0.0)  # the freshest word on a token
        delay = retry_after_seconds(last.header("retry-after"))
        assert delay is not None
        limit = declared(snapshots)
        if not independent.check(
            delay <= MAX_WAIT_SECONDS,
            ("LIMIT-RATE-RECOVERS",),
            "a 429 asks for a wait the declared refill does not need",
            f"Retry-After within {MAX_WAIT_SECONDS:g}s (the declared refill of "
            f"{limit.refill_per_second:g}/s brings a token back in "
            f"{1 / limit.refill_per_second:.2f}s)",
            f"Retry-After: {last.header('retry-after')!r}",
            reply_of(snapshots.client, last),
        ):
            return
        again = traffic.again
        assert again is not None  # sent whenever the checks above hold
        independent.check(
            again.status == 200,
            ("LIMIT-RATE-RECOVERS",),
            "the instance was not served again after Retry-After",
            f"HTTP 200 {delay:g}s after the last 429 (its Retry-After)",
            again.describe(),
            again,
        )


def anonymous_traffic(snapshots: Snapshots, alone: bool) -> Traffic:
    """A drain without an instance id, its polls taking turns among the keys the declared scope
    puts in one bucket, then the wait for that bucket to refill (whatever the verdict: the
    bucket is the anonymous callers', shared by every poll without an id)."""
    refused: list[Record] = []
    callers = sharing_callers(snapshots)
    try:
        watch = Evidence(snapshots, side_by_side=not alone)
        latency = answer_time(snapshots)
        offered = drain(snapshots, None, "no instance id", latency, watch, callers)
        refusal = limited_status(snapshots)
        drained = sorted(offered.sent(DRAIN), key=lambda r: r.sent or 0.0)
        refused = [r for r in drained if r.status == refusal]
    finally:
        wait_out(snapshots, refused, [key for key, _ in callers], None)
    return Traffic(offered)


@requirement("LIMIT-RATE-SHARED-WITHOUT-ID")
def test_callers_without_an_id_share_a_bucket(
    request: pytest.FixtureRequest, snapshots: Snapshots
) -> None:
    """Polls without an instance id, spread over several connections (and, under ``rate_limit.
    scope: instance``, taking turns among every SDK key), drain one bucket.

    One shared bucket serves no more than the declared budget over the drain, whichever
    connection (server) and key each poll came from; a bucket per connection, or per key where
    the declared scope has one bucket for all keys, serves several budgets."""
    ids = ("LIMIT-RATE-SHARED-WITHOUT-ID",)
    offered = SIDE_BY_SIDE.take(request, snapshots).offered
    connections = {r.connection for r in offered.sent(DRAIN)}
    keys = {r.planned.headers["authorization"] for r in offered.sent(DRAIN)}
    judge_drain(
        snapshots,
        offered,
        ids,
        f"callers without an id on {len(connections)} connections with {len(keys)} "
        f"key{'s' if len(keys) != 1 else ''}",
    )  # a poll answered neither 200 nor 429 is judged however few connections it took
    if len(connections) < 2:
        raise NotMeasurable(f"the suite sent from {len(connections)} connection only")


@dataclass(frozen=True)
class Paced:
    """The within-budget run's plan: ``at_once`` polls at once, then ``pace`` per second for
    ``steady_seconds``, from the declared bucket."""

    at_once: int
    pace: float
    steady_seconds: float

    @classmethod
    def of(cls, limit: Limit) -> Paced:
        spare = max(3, math.ceil(limit.burst * SPARE_SHARE))
        pace = STEADY_SHARE * limit.refill_per_second
        steady = max(1.0, 2 * spare / ((STEADY_SHARE - SLOW_SHARE) * limit.refill_per_second))
        return cls(max(0, int(limit.burst) - spare), pace, steady)

    def times(self) -> list[float]:
        start = 0.05 + 1 / self.pace
        steady = uniform(math.ceil(self.pace * self.steady_seconds), self.steady_seconds, start)
        return uniform(self.at_once, 0.05) + steady


def paced_traffic(snapshots: Snapshots, alone: bool) -> Traffic:
    instance = snapshots.client.new_instance_id()
    latency = answer_time(snapshots)
    plan = [poll(snapshots, at, instance) for at in Paced.of(declared(snapshots)).times()]
    until = None if alone else partial(crowded, snapshots)  # beside drains: stop when crowded
    return Traffic(send(snapshots.client, plan, latency, "within the budget", until=until))


@requirement("LIMIT-RATE-WITHIN-BUDGET")
def test_paced_polls_are_never_limited(
    request: pytest.FixtureRequest, snapshots: Snapshots
) -> None:
    """A fresh instance spends most of its declared burst at once, then polls steadily below the
    declared refill: a correct bucket never runs dry, one that refills at ``SLOW_SHARE`` of the
    declared rate (or holds less than the declared burst) does within the steady part. Each
    429 is judged against the declared bucket's floor at the poll's arrival (send to answer)."""
    ids = ("LIMIT-RATE-WITHIN-BUDGET",)
    limit = declared(snapshots)
    paced = Paced.of(limit)
    offered = SIDE_BY_SIDE.take(request, snapshots).offered
    planned = len(paced.times())
    records = sorted(offered.sent(), key=lambda r: r.sent or 0.0)
    bad = [r for r in records if r.status not in (200, limited_status(snapshots))]
    expect(
        not bad,
        ids,
        "a poll within the declared budget was not answered",
        f"HTTP 200 for each of {planned} polls",
        f"{status_of(bad[0])}; {offered.describe()}" if bad else "",
        reply_of(snapshots.client, bad[0]) if bad and bad[0].status is not None else None,
    )
    refused = [n for n, r in enumerate(records) if r.status == limited_status(snapshots)]
    if not refused:
        return
    spans = windows(records)
    first = spans[0].sent
    early = early_refusal(limit, spans, refused, first)
    if early is None:
        raise NotMeasurable(
            f"{len(refused)} 429(s), each when the suite's own sends (counted from send to "
            f"answer) could have emptied the declared bucket: {offered.describe()}",
            ids,
        )
    raise violation(
        ids,
        "a poll within the declared budget was refused",
        f"HTTP 200 for each of {planned} polls: {paced.at_once} at once, then "
        f"{paced.pace:g}/s for {paced.steady_seconds:.2f}s (burst {limit.burst:g}, refill "
        f"{limit.refill_per_second:g}/s)",
        f"{early.describe(limit, spans, first)}; {len(refused)} refused; {offered.describe()}",
        reply_of(snapshots.client, records[early.index]),
    )


def undisturbed(snapshots: Snapshots, traffic: Traffic) -> bool:
    """Traffic sent side by side with other drains that is fit to judge as it is: every poll
    answered 200 or 429, none waiting long for a free connection, the pool never at its cap
    (else the target or its path did not keep up with several drains at once: alone again)."""
    offered = traffic.offered
    return not offered.cap_reached and not any(crowded(snapshots, r) for r in offered.sent())


SIDE_BY_SIDE = SideBySide(
    {
        "test_burst_is_limited_and_recovers": burst_traffic,
        "test_callers_without_an_id_share_a_bucket": anonymous_traffic,
        "test_paced_polls_are_never_limited": paced_traffic,
    },
    undisturbed,
)
