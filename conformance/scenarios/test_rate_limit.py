"""Scenarios: the status endpoint's per-server rate limit (spec 8), from the profile's budget.

These drain buckets on purpose, each a fresh instance id's or the shared no-id bucket, so they
run in one xdist group (with the only other scenario that polls without an instance id) and
every drained shared bucket is waited out. Other traffic cannot touch these buckets, so they do
not need the run to themselves.
"""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

import pytest

from conformance.checks import Soft, expect
from conformance.checks.sdk import Snapshots
from conformance.client import Client, Reply
from conformance.errors import NotMeasurable

requirement = pytest.mark.requirement
pytestmark = pytest.mark.xdist_group("rate-limit")
MAX_WAIT_SECONDS = 10.0


def drain(snapshots: Snapshots, instance_id: str | None) -> tuple[int, Reply | None, float]:
    """Poll as fast as possible until the first 429.

    Returns (requests sent, the 429 or None, the monotonic time the 429's request was sent). The
    bucket was empty no earlier than that moment, so refill counted from it is an upper bound."""
    rate = snapshots.profile.rate_limit
    cap = int(rate.burst * 3 + rate.refill_per_second * 3 + 50)
    key = snapshots.key("development").key
    sent_at = time.monotonic()
    for sent in range(1, cap + 1):
        sent_at = time.monotonic()
        reply = snapshots.client.status(
            key=key,
            environment="development",
            instance_id=instance_id,
            allow_rate_limit=True,
            pace=False,
        )
        if reply.status == 429:
            return sent, reply, sent_at
    return cap, None, sent_at


def burst_probe_size(snapshots: Snapshots) -> int:
    """How many back-to-back polls a probe sends after a drain: a few, and well inside one burst."""
    return max(2, min(10, snapshots.profile.rate_limit.burst // 2))


def refill_since(snapshots: Snapshots, empty_at: float) -> float:
    """The most tokens a bucket emptied at `empty_at` can have gained by now (plus the one it may
    have held when it refused)."""
    return 1.0 + (time.monotonic() - empty_at) * snapshots.profile.rate_limit.refill_per_second


def retry_after_seconds(reply: Reply) -> float | None:
    value = reply.headers.get("retry-after")
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


def wait_out(snapshots: Snapshots, reply: Reply | None, bucket: tuple[str, str | None]) -> None:
    """Let a drained bucket refill before anyone uses it again."""
    delay = retry_after_seconds(reply) if reply is not None else None
    rate = snapshots.profile.rate_limit
    delay = min(MAX_WAIT_SECONDS, delay if delay is not None else 1.0)
    time.sleep(max(delay, 1.0 / rate.refill_per_second))
    snapshots.client.pacer.reset(bucket)


@requirement("LIMIT-RATE-ENFORCED", "LIMIT-RATE-429-RETRY-AFTER", "LIMIT-RATE-RECOVERS")
def test_burst_is_limited_and_recovers(snapshots: Snapshots) -> None:
    instance = snapshots.client.new_instance_id()
    key = snapshots.key("development").key
    sent, limited, _ = drain(snapshots, instance)
    expect(
        limited is not None,
        ("LIMIT-RATE-ENFORCED",),
        "a burst beyond the declared budget was never limited",
        f"a 429 within {sent} back-to-back polls (burst {snapshots.profile.rate_limit.burst})",
        "no 429",
    )
    assert limited is not None
    delay = retry_after_seconds(limited)
    expect(
        delay is not None,
        ("LIMIT-RATE-429-RETRY-AFTER",),
        "a 429 carries no usable Retry-After",
        "Retry-After: <delta-seconds> or an HTTP date",
        f"Retry-After: {limited.headers.get('retry-after')!r}",
        limited,
    )
    assert delay is not None
    if delay > MAX_WAIT_SECONDS:
        raise NotMeasurable(f"Retry-After {delay:.0f}s is longer than the suite waits")
    time.sleep(delay + 0.05)
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
    """Drain instance A, then poll a fresh instance B back to back a few times.

    B's own bucket is full, so none of those polls may be refused. Were B sharing A's drained
    bucket, B could only be served the tokens refilled since A's 429; when the machine was so slow
    that refill alone covers the probe, the run cannot tell the two apart and says so."""
    ids = ("LIMIT-RATE-PER-INSTANCE",)
    key = snapshots.key("development").key
    _, limited, empty_at = drain(snapshots, snapshots.client.new_instance_id())
    if limited is None:
        raise NotMeasurable("the first instance was never limited (see LIMIT-RATE-ENFORCED)")
    other = snapshots.client.new_instance_id()
    probe = burst_probe_size(snapshots)
    reply = limited
    for _ in range(probe):
        reply = snapshots.client.status(
            key=key, environment="development", instance_id=other, allow_rate_limit=True, pace=False
        )
        if reply.status == 429:
            break
    expect(
        reply.status != 429,
        ids,
        "another instance id was limited with the drained one",
        f"{probe} back-to-back polls of a fresh instance id served (its own, full bucket)",
        reply.describe(),
        reply,
    )
    if refill_since(snapshots, empty_at) >= probe:
        raise NotMeasurable(
            f"{probe} polls took so long that a shared bucket would have refilled for them too"
        )


@requirement("LIMIT-RATE-SHARED-WITHOUT-ID")
def test_callers_without_an_id_share_a_bucket(snapshots: Snapshots) -> None:
    """A drains the shared bucket; B (own connection, no id) then polls back to back.

    With one shared bucket B meets a 429 within half a burst (only refill tokens are left);
    with a bucket of its own B would be served a whole burst."""
    ids = ("LIMIT-RATE-SHARED-WITHOUT-ID",)
    key = snapshots.key("development").key
    with Client(
        snapshots.client.base_url,
        snapshots.profile,
        run_prefix=snapshots.client.run_prefix,
        redactor=snapshots.client.redactor,
        transcript=snapshots.client.transcript,
    ) as second:
        second.status(key=key, environment="development", instance_id=None, allow_rate_limit=True)
        _, limited, empty_at = drain(snapshots, None)
        if limited is None:
            raise NotMeasurable("polls without an instance id were never limited")
        try:
            tries = max(2, snapshots.profile.rate_limit.burst // 2)
            statuses = []
            for _ in range(tries):
                reply = second.status(
                    key=key,
                    environment="development",
                    instance_id=None,
                    allow_rate_limit=True,
                    pace=False,
                )
                statuses.append(reply.status)
                if reply.status == 429:
                    break
            if 429 not in statuses and refill_since(snapshots, empty_at) >= tries:
                raise NotMeasurable(
                    f"{tries} polls took so long that the shared bucket refilled for them"
                )
            expect(
                429 in statuses,
                ids,
                "a second caller without an id has a bucket of its own",
                f"a 429 within {tries} back-to-back polls (one shared, drained bucket)",
                f"statuses {statuses}",
                reply,
            )
        finally:
            wait_out(snapshots, limited, (key, None))


@requirement("LIMIT-RATE-WITHIN-BUDGET")
def test_paced_polls_are_never_limited(snapshots: Snapshots) -> None:
    ids = ("LIMIT-RATE-WITHIN-BUDGET",)
    rate = snapshots.profile.rate_limit
    count = int(rate.burst * 0.5 + rate.refill_per_second * 0.5) + 1
    instance = snapshots.client.new_instance_id()
    with Soft() as soft:
        for _ in range(count):
            reply = snapshots.status(instance_id=instance, allow_rate_limit=True)
            if not soft.check(
                reply.status != 429,
                ids,
                "a poll within the declared budget was limited",
                f"no 429 for {count} polls paced below burst {rate.burst}, "
                f"refill {rate.refill_per_second}/s",
                reply.describe(),
                reply,
            ):
                break
