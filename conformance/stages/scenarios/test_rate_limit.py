"""Scenarios: the status endpoint's per-server rate limit (spec 8), from the profile's budget.

Buckets are drained open-loop (``traffic.open_loop``): the polls leave at planned times over
as many connections as the target's latency needs, so the rate the target sees is the suite's,
however long it takes to answer. Each drain offers twice what the declared bucket (``burst``,
``refill_per_second``) can serve over its span, and is judged on the actual send and answer
times: whatever a correct bucket would have served, with every request counted at the latest
moment the target could have handled it (its answer), and no more. Only the suite's own failure
to offer that excess (sends late against the plan) leaves a drain not measurable, with the
figures.

They run in one xdist group (with the only other scenario that polls without an instance id)
and every drained shared bucket is waited out. Other traffic cannot touch these buckets, so they
do not need the run to themselves.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from email.utils import parsedate_to_datetime

import pytest

from conformance.checks import expect, violation
from conformance.checks.sdk import Snapshots
from conformance.errors import NotMeasurable
from conformance.traffic.ledger import Ledger
from conformance.traffic.open_loop import Offer, Planned, Record, reply_of, send, uniform
from conformance.traffic.token_bucket import Limit

requirement = pytest.mark.requirement
pytestmark = pytest.mark.serial  # drains buckets: nothing else of the suite in flight
MAX_WAIT_SECONDS = 10.0
DRAIN_SECONDS = 1.0  # span of one drain, before the target's own latency stretches it
EXCESS = 2.0  # a drain offers this many times what the declared bucket serves over it
PROBE_FROM, PROBE_TO = 0.6, 0.95  # where in a drain another instance's probes go (share of it)
MARGIN_TOKENS = 1.0  # rounding between the target's clock and ours
DRAIN, PROBE = "drain", "probe"


def drain_rate(snapshots: Snapshots) -> float:
    """Polls per second that offer ``EXCESS`` times the declared budget over ``DRAIN_SECONDS``."""
    rate = snapshots.profile.rate_limit
    return EXCESS * (rate.burst / DRAIN_SECONDS + rate.refill_per_second)


def answer_time(snapshots: Snapshots) -> float:
    """The target's answer time now (seconds): one poll in a bucket of its own."""
    reply = snapshots.status(instance_id=snapshots.client.new_instance_id())
    return reply.exchange.elapsed_ms / 1000


def poll(snapshots: Snapshots, at: float, instance_id: str | None, tag: str = DRAIN) -> Planned:
    names = snapshots.profile.headers
    headers = {"authorization": snapshots.key("development").key, names.environment: "development"}
    if instance_id is not None:
        headers[names.instance_id] = instance_id
    return Planned(at, "/sdk/v2/status", headers, tag)


def drain_plan(snapshots: Snapshots, instance_id: str | None) -> list[Planned]:
    count = round(drain_rate(snapshots) * DRAIN_SECONDS)
    return [poll(snapshots, at, instance_id) for at in uniform(count, DRAIN_SECONDS)]


def declared_allows(snapshots: Snapshots, seconds: float) -> float:
    """The most polls the declared bucket serves over ``seconds`` from full."""
    rate = snapshots.profile.rate_limit
    return rate.burst + rate.refill_per_second * max(0.0, seconds) + MARGIN_TOKENS


def judge_drain(
    snapshots: Snapshots, offered: Offer, ids: Sequence[str], what: str
) -> list[Record]:
    """The drain's refusals, after judging it: every poll answered 200 or 429, none served
    beyond what the declared bucket allows, and at least one refused. Not measurable only when
    the suite's own sends did not exceed the declared budget."""
    planned = [r for r in offered.records if r.planned.tag == DRAIN]
    bad = [r for r in planned if r.status not in (200, 429)]
    if bad:
        raise violation(
            ids,
            f"{what}: polls were not answered 200 or 429",
            "HTTP 200, or 429 beyond the budget, for every poll",
            f"{len(bad)} of {len(planned)}: first {_status(bad[0])}; {offered.describe()}",
            reply_of(snapshots.client, bad[0]) if bad[0].status is not None else None,
        )
    drained = offered.sent(DRAIN)  # every one was sent: each has an answer
    first = min(r.sent for r in drained if r.sent is not None)
    sent_span = max(r.sent for r in drained if r.sent is not None) - first
    if len(drained) <= declared_allows(snapshots, sent_span):
        raise NotMeasurable(
            f"the suite offered only {len(drained)} polls in {sent_span:.2f}s, within the "
            f"declared budget ({offered.offered_rate:.0f}/s of {offered.planned_rate:.0f}/s "
            f"planned, sends up to {offered.lag * 1000:.0f} ms late): {offered.describe()}",
            ids,
        )
    served = [r for r in drained if r.status == 200]
    refused = [r for r in drained if r.status == 429]
    rate = snapshots.profile.rate_limit
    expect(
        bool(refused),
        ids,
        f"{what}: a burst beyond the declared budget was never limited",
        f"a 429 within {len(drained)} polls sent in {sent_span:.2f}s (burst {rate.burst}, "
        f"refill {rate.refill_per_second:g}/s)",
        f"no 429; {offered.describe()}",
    )
    latest = max((r.answered or 0.0) for r in served) if served else first
    allowed = declared_allows(snapshots, latest - first)
    expect(
        len(served) <= allowed,
        ids,
        f"{what}: more polls were served than the declared bucket holds",
        f"at most {allowed:.0f} served: burst {rate.burst} + {rate.refill_per_second:g}/s over "
        f"{latest - first:.2f}s (first send to the last served answer)",
        f"{len(served)} served of {len(drained)}; {offered.describe()}",
        reply_of(snapshots.client, refused[0]),
    )
    return refused


def _status(record: Record) -> str:
    return f"no answer ({record.error})" if record.status is None else f"HTTP {record.status}"


def retry_after_seconds(value: str | None) -> float | None:
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def wait_out(
    snapshots: Snapshots, refused: Sequence[Record], bucket: tuple[str, str | None]
) -> None:
    """Let a drained bucket refill before anyone uses it again."""
    delay = retry_after_seconds(refused[-1].header("retry-after")) if refused else None
    rate = snapshots.profile.rate_limit
    delay = min(MAX_WAIT_SECONDS, delay if delay is not None else 1.0)
    time.sleep(max(delay, 1.0 / rate.refill_per_second))
    snapshots.client.forget_bucket(bucket)


@requirement("LIMIT-RATE-ENFORCED", "LIMIT-RATE-429-RETRY-AFTER", "LIMIT-RATE-RECOVERS")
def test_burst_is_limited_and_recovers(snapshots: Snapshots) -> None:
    instance = snapshots.client.new_instance_id()
    key = snapshots.key("development").key
    latency = answer_time(snapshots)
    offered = send(snapshots.client, drain_plan(snapshots, instance), latency, "one instance")
    refused = judge_drain(snapshots, offered, ("LIMIT-RATE-ENFORCED",), "one instance id")
    unusable = [r for r in refused if retry_after_seconds(r.header("retry-after")) is None]
    expect(
        not unusable,
        ("LIMIT-RATE-429-RETRY-AFTER",),
        "a 429 carries no usable Retry-After",
        "Retry-After: <delta-seconds> or an HTTP date on every 429",
        f"{len(unusable)} of {len(refused)} 429s; Retry-After: "
        f"{unusable[0].header('retry-after') if unusable else None!r}",
        reply_of(snapshots.client, unusable[0]) if unusable else None,
    )
    last = refused[-1]  # the freshest word on when the bucket has a token again
    delay = retry_after_seconds(last.header("retry-after"))
    assert delay is not None and last.answered is not None
    rate = snapshots.profile.rate_limit
    expect(
        delay <= MAX_WAIT_SECONDS,
        ("LIMIT-RATE-RECOVERS",),
        "a 429 asks for a wait the declared refill does not need",
        f"Retry-After within {MAX_WAIT_SECONDS:g}s (the declared refill of "
        f"{rate.refill_per_second:g}/s brings a token back in {1 / rate.refill_per_second:.2f}s)",
        f"Retry-After: {last.header('retry-after')!r}",
        reply_of(snapshots.client, last),
    )
    time.sleep(max(0.0, last.answered + delay + 0.05 - time.monotonic()))
    again = snapshots.client.status(
        key=key, environment="development", instance_id=instance, allow_rate_limit=True, pace=False
    )
    expect(
        again.status == 200,
        ("LIMIT-RATE-RECOVERS",),
        "the instance was not served again after Retry-After",
        "HTTP 200",
        again.describe(),
        again,
    )


@requirement("LIMIT-RATE-PER-INSTANCE")
def test_each_instance_has_its_own_bucket(snapshots: Snapshots) -> None:
    """Drain instance A; while A is being refused, a fresh instance B polls a few times.

    B's own bucket is full, so none of B's polls may be refused. Were B sharing A's bucket, it
    would be refused like A: A's polls keep arriving many times faster than the bucket refills,
    so a shared bucket has about one token in ``EXCESS * (burst + refill) / refill`` polls."""
    ids = ("LIMIT-RATE-PER-INSTANCE",)
    rate = snapshots.profile.rate_limit
    latency = answer_time(snapshots)
    plan = drain_plan(snapshots, snapshots.client.new_instance_id())
    other = snapshots.client.new_instance_id()
    probes = max(1, min(10, rate.burst - 1))
    step = (PROBE_TO - PROBE_FROM) / probes
    plan += [
        poll(snapshots, DRAIN_SECONDS * (PROBE_FROM + step * n), other, PROBE)
        for n in range(probes)
    ]
    plan.sort(key=lambda p: p.at)
    offered = send(snapshots.client, plan, latency, "one instance drained, another probing")
    refused = [r for r in offered.sent(DRAIN) if r.status == 429]
    if not refused:
        raise NotMeasurable(
            f"the drained instance was never limited (see LIMIT-RATE-ENFORCED): "
            f"{offered.describe()}"
        )
    empty_from = min(r.answered or r.sent or 0.0 for r in refused)
    probing = [r for r in offered.sent(PROBE) if (r.sent or 0.0) >= empty_from]
    if not probing:
        raise NotMeasurable(
            "the drained instance was limited only after the other instance's probes, later "
            f"than the declared budget allows (see LIMIT-RATE-ENFORCED): {offered.describe()}"
        )
    turned_away = [r for r in probing if r.status != 200]
    if turned_away:
        raise violation(
            ids,
            "another instance id was limited with the drained one",
            f"{len(probing)} polls of a fresh instance id served (its own, full bucket) while "
            "the drained instance was refused",
            f"{len(turned_away)} of {len(probing)} not served, first {_status(turned_away[0])}; "
            f"{offered.describe()}",
            reply_of(snapshots.client, turned_away[0]),
        )


@requirement("LIMIT-RATE-SHARED-WITHOUT-ID")
def test_callers_without_an_id_share_a_bucket(snapshots: Snapshots) -> None:
    """Polls without an instance id, spread over several connections, drain one bucket.

    One shared bucket serves no more than the declared budget over the drain, whichever
    connection (server) each poll came from; a bucket per connection serves several budgets."""
    ids = ("LIMIT-RATE-SHARED-WITHOUT-ID",)
    key = snapshots.key("development").key
    latency = answer_time(snapshots)
    refused: list[Record] = []
    try:
        offered = send(snapshots.client, drain_plan(snapshots, None), latency, "no instance id")
        connections = {r.connection for r in offered.sent(DRAIN)}
        if len(connections) < 2:
            raise NotMeasurable(f"the suite sent from {len(connections)} connection only")
        refused = judge_drain(
            snapshots, offered, ids, f"callers without an id on {len(connections)} connections"
        )
    finally:
        wait_out(snapshots, refused, (key, None))


@requirement("LIMIT-RATE-WITHIN-BUDGET")
def test_paced_polls_are_never_limited(snapshots: Snapshots) -> None:
    """Polls offered at half the declared budget: half a burst at once, then half the refill
    rate. A 429 is a fail unless the suite's own sends (replayed through the declared bucket,
    with the target's spread of answer times as margin) could have emptied it."""
    ids = ("LIMIT-RATE-WITHIN-BUDGET",)
    rate = snapshots.profile.rate_limit
    half_burst = max(1, int(rate.burst * 0.5))
    steady = int(rate.refill_per_second * 0.5) + 1
    instance = snapshots.client.new_instance_id()
    latency = answer_time(snapshots)
    times = uniform(half_burst, 0.1) + uniform(steady, steady / (rate.refill_per_second * 0.5), 0.1)
    plan = [poll(snapshots, at, instance) for at in times]
    offered = send(snapshots.client, plan, latency, "within the budget")
    answered = offered.latencies()
    spread = (answered[-1] - answered[0]) if answered else 0.0
    margin = 1.0 + MARGIN_TOKENS + rate.refill_per_second * spread
    ledger, limit = Ledger(), Limit(rate.burst, rate.refill_per_second)
    for record in sorted(offered.sent(), key=lambda r: r.sent or 0.0):
        replay = ledger.record(instance, limit, at=record.sent)
        if record.status == 429 and replay.tokens < margin:
            raise NotMeasurable(
                f"the suite's own sends came too close together: {replay.describe()} "
                f"(margin {margin:.1f} for answers spread over {spread:.2f}s); "
                f"{offered.describe()}",
                ids,
            )
        expect(
            record.status == 200,
            ids,
            "a poll within the declared budget was not served",
            f"HTTP 200 for each of {len(plan)} polls offered at half the budget (burst "
            f"{rate.burst}, refill {rate.refill_per_second:g}/s)",
            f"{_status(record)}; {replay.describe()}; {offered.describe()}",
            reply_of(snapshots.client, record) if record.status is not None else None,
        )
