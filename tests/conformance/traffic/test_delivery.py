"""Whether an offer delivered its load: counted by actual send timestamps, never by the plan nor
by when a send would have left had a connection been free; answers are figures; a target's
failures are reported whatever the load. The capped case is the reference server behind the
throughput-capping proxy (``tests/support/latency_proxy``), far below the burst's planned rate."""

from __future__ import annotations

from typing import Any

from conformance.profile import load
from conformance.traffic.delivery import delivery, most_inside
from conformance.traffic.open_loop import Offer, Planned, Record, offer, uniform
from tests.support.latency_proxy import LatencyProxy

PLANNED = Planned(0.0, "/sdk/v2/status", {})


def record(
    index: int,
    due: float,
    sent: float | None,
    answered: float | None,
    status: int | None = 200,
    error: str | None = None,
) -> Record:
    return Record(index, PLANNED, due, sent, answered, status, (), b"", index, error)


def burst(
    count: int,
    span: float,
    *,
    send_every: float | None = None,
    answer_every: float | None = None,
    latency: float = 0.005,
) -> Offer:
    """``count`` requests planned over ``span``; sent every ``send_every`` (default: on plan) and
    answered ``latency`` later, or one every ``answer_every`` (a queue letting them through)."""
    plan = uniform(count, span)
    records = []
    for n, due in enumerate(plan):
        sent = due if send_every is None else n * send_every
        answered = sent + latency if answer_every is None else max(sent, n * answer_every)
        records.append(record(n, due, sent, answered))
    rate = count / (plan[-1] - plan[0])  # as ``offer`` states it: over the plan's own span
    return Offer(tuple(records), planned_rate=rate, connections=8, cap_reached=False)


def test_most_inside_counts_a_window_with_both_ends() -> None:
    moments = [0.0, 0.1, 0.2, 1.05, 1.1, 1.15, 1.2]
    assert most_inside(moments, 0.2) == 4  # 1.05 .. 1.2
    assert most_inside(moments, 1.0) == 5  # 0.2 .. 1.2
    assert most_inside(moments, 2.0) == 7
    assert most_inside([], 1.0) == 0


def test_a_burst_sent_and_answered_on_plan_is_delivered() -> None:
    result = delivery(burst(400, 0.8), 400, 1.0)
    assert result.delivered and result.sent == 400 and result.answered == 400
    assert result.shortfall() == "" and result.failures() == ""


def test_a_burst_that_left_late_is_not_delivered_with_its_figures() -> None:
    """The case that once failed correct targets: 72/s went out of 501/s planned."""
    result = delivery(burst(400, 0.8, send_every=1 / 72, latency=4.6), 400, 1.0)
    assert not result.delivered and result.sent == 73
    shortfall = result.shortfall()
    assert "the suite did not send the load" in shortfall
    assert "at most 73 sent and 73 answered inside any 1s of the 400 needed" in shortfall
    assert "at 72/s (501/s planned)" in shortfall
    assert "answers in 4600 ms median" in shortfall


def test_a_burst_sent_on_plan_is_delivered_however_slowly_it_is_answered() -> None:
    """Sent on the wire at the planned rate, answered at 60/s: the target (or the gateway in
    front of it) was shown the load; its pace of answering is a figure, not an excuse."""
    result = delivery(burst(400, 0.8, answer_every=1 / 60), 400, 1.0)
    assert result.sent == 400 and result.answered == 61
    assert result.delivered and result.shortfall() == ""
    assert "at most 400 sent and 61 answered inside any 1s" in result.figures()


def test_waiting_for_a_connection_is_not_sending() -> None:
    """Sends that waited for a connection the target held count when they left, not when they
    were due: the target saw them then."""
    planned = [record(n, 0.1 * n, 0.1 * n if n < 3 else 0.3 + 0.5 * n, None) for n in range(5)]
    held = [
        Record(r.index, PLANNED, r.scheduled, r.sent, (r.sent or 0) + 0.05, 200, (), b"", r.index)
        for r in planned
    ]
    result = delivery(Offer(tuple(held), 10.0, 5, cap_reached=True), 5, 0.45)
    assert result.sent == 3 and not result.delivered


def test_failed_requests_are_counted_whatever_the_load() -> None:
    records = [
        record(0, 0.0, 0.0, 0.01),
        record(1, 0.1, 0.1, None, None, "TimeoutError"),
        record(2, 0.2, 0.2, 0.21, 503),
        record(3, 0.3, None, None, None, "ConnectionRefusedError"),  # never sent: not the target's
    ]
    result = delivery(Offer(tuple(records), 10.0, 2, cap_reached=False), 100, 1.0)
    assert [r.index for r in result.failed] == [1, 2]
    assert result.failures() == (
        "2 of 3 requests failed: 1 with no answer (TimeoutError), 1 answered 5xx"
    )
    assert not result.delivered


def test_a_burst_through_a_capped_path_is_not_delivered(fresh_reference_server: Any) -> None:
    """400 polls planned over 0.8 s (501/s) to the reference server behind a proxy that lets
    ``rate`` a second through: every connection the suite may open (256) is soon held by an
    unanswered poll, so the rest leave only as answers come back, and far fewer than 400 leave
    inside any second."""
    profile = load(fresh_reference_server.profile_path)
    key = profile.credentials.sdk_keys[0]
    plan = [
        Planned(
            at,
            "/sdk/v2/status",
            {
                "authorization": key.key,
                profile.headers.environment: key.environments[0],
                profile.headers.instance_id: f"cf-delivery-{n}",
            },
        )
        for n, at in enumerate(uniform(400, 0.8))
    ]
    rate = 60.0
    with LatencyProxy(str(fresh_reference_server.base_url), 0, max_per_second=rate) as proxy:
        result = delivery(offer(proxy.base_url, plan, latency=0.0), 400, 1.0)
    print(result.figures())
    assert not result.delivered, result.figures()  # what failed through the path is a figure
    assert result.answered <= rate * 1.5 + 5, result.figures()
    assert result.sent < 400 and result.offer.cap_reached, result.figures()
    assert "the suite did not send the load" in result.shortfall()
