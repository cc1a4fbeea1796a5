"""Open-loop load: requests leave on plan whatever the answer time, over real loopback sockets.

The slow target is the reference server behind the latency-adding proxy
(``tests/support/latency_proxy``, its own process): a closed loop over the starting pool would need
many times the plan's span.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conformance.profile import Profile, load
from conformance.traffic.client import Client
from conformance.traffic.open_loop import (
    MIN_CONNECTIONS,
    Offer,
    Planned,
    Record,
    offer,
    pool_size,
    reply_of,
    send,
    uniform,
)
from tests.support.latency_proxy import LatencyProxy

DELAY_MS = 100


@pytest.fixture(scope="module")
def far(reference_server: Any) -> Iterator[str]:
    """The reference server, ``DELAY_MS`` away."""
    with LatencyProxy(str(reference_server.base_url), DELAY_MS) as proxy:
        yield proxy.base_url


@pytest.fixture
def profile(reference_server: Any) -> Profile:
    return load(reference_server.profile_path)


def polls(profile: Profile, count: int, seconds: float, tag: str = "") -> list[Planned]:
    key = profile.credentials.sdk_keys[0]
    return [
        Planned(
            at,
            "/sdk/v2/status",
            {
                "authorization": key.key,
                profile.headers.environment: key.environments[0],
                profile.headers.instance_id: f"cf-open-loop-{tag}-{n}",
            },
            tag,
        )
        for n, at in enumerate(uniform(count, seconds))
    ]


def test_uniform_spreads_the_count_over_the_span() -> None:
    assert uniform(4, 1.0) == [0.0, 0.25, 0.5, 0.75]
    assert uniform(3, 0.3, start=1.0) == pytest.approx([1.0, 1.1, 1.2])
    assert uniform(1, 5.0) == [0.0]


def test_pool_size_is_what_the_plan_keeps_in_flight() -> None:
    every_10_ms = [n / 100 for n in range(100)]
    assert pool_size(every_10_ms, 0.0, 256) == MIN_CONNECTIONS
    assert pool_size(every_10_ms, 0.1, 256) == 18  # 11 inside any 100 ms, times 1.5, plus one
    assert pool_size(every_10_ms, 10.0, 40) == 40  # the cap wins


def record(index: int, sent: float | None, status: int | None = 200) -> Record:
    planned = Planned(sent or 0.0, "/sdk/v2/status", {})
    answered = None if sent is None else sent + 0.01
    return Record(index, planned, sent or 0.0, sent, answered, status, (), b"", 0)


def test_the_figures_count_only_what_was_sent() -> None:
    result = Offer(
        tuple(record(n, t) for n, t in enumerate([0.0, 0.1, 0.2, 1.05, 1.1, 1.15, 1.2, None])),
        planned_rate=10.0,
        connections=1,
        cap_reached=False,
    )
    assert len(result.sent()) == 7 and result.span == pytest.approx(1.2)
    assert "offered 7 of 8 planned requests at 6/s (10/s planned)" in result.describe()


def test_a_wait_for_a_free_connection_is_told_from_the_suites_own_lag() -> None:
    planned = Planned(0.0, "/sdk/v2/status", {})
    held = Record(0, planned, 1.0, 1.3, 1.4, 200, (), b"", 0, ready=1.25)  # target held it
    cpu = Record(1, planned, 1.0, 1.02, 1.1, 200, (), b"", 1, ready=0.5)  # free, left late
    assert held.waited == pytest.approx(0.25) and held.own_lag == pytest.approx(0.05)
    assert cpu.waited == 0.0 and cpu.own_lag == pytest.approx(0.02)
    result = Offer((held, cpu), planned_rate=2.0, connections=2, cap_reached=False)
    assert result.waited == pytest.approx(0.25) and result.own_lag == pytest.approx(0.05)
    assert "waits for a free connection up to 250 ms, own CPU up to 50 ms" in result.describe()


def test_a_slow_target_gets_the_planned_rate(far: str, profile: Profile) -> None:
    """60 polls in 0.3 s to a target 100 ms away, starting from the minimum pool: a closed loop
    over it would take 60 * 0.1 / 4 = 1.5 s; open loop grows the pool and keeps the plan (up
    to the ramp: each new connection pays the proxy's handshake round trip first)."""
    result = offer(far, polls(profile, 60, 0.3, "grow"), latency=0.0)
    assert [r.status for r in result.records] == [200] * 60, result.describe()
    assert result.span < 0.9, result.describe()
    assert result.connections > MIN_CONNECTIONS, result.describe()
    assert min(result.latencies()) >= DELAY_MS / 1000


def test_a_measured_latency_opens_the_pool_before_the_first_send(
    far: str, profile: Profile
) -> None:
    result = offer(far, polls(profile, 60, 0.3, "sized"), latency=DELAY_MS / 1000)
    assert result.connections >= 20, result.describe()  # 200/s * 0.1 s in flight, plus margin
    assert all(r.status == 200 for r in result.records), result.describe()
    assert result.offered_rate > 120, result.describe()  # 200/s planned


def test_a_dead_port_is_recorded_not_raised(closed_port_url: str, profile: Profile) -> None:
    result = offer(closed_port_url, polls(profile, 3, 0.01, "dead"), latency=0.0, timeout=2.0)
    assert [r.status for r in result.records] == [None] * 3
    assert all(r.error for r in result.records)
    assert "no answer x3" in result.describe()


def test_evidence_and_transcript_keep_secrets_out(reference_server: Any, profile: Profile) -> None:
    with Client(reference_server.base_url, profile, run_prefix="cf-unit") as client:
        result = send(client, polls(profile, 5, 0.05, "evidence"), 0.0, "five polls")
        reply = reply_of(client, result.records[0])
        shown = client.transcript.render() + reply.curl + str(reply.exchange)
    heading = "(open loop, five polls: 5 of 5 requests sent, answered 200 x5; the last answer)"
    assert heading in shown
    assert "\n< 200\n" in shown and "no response" not in shown  # a real answer, not a gap
    assert reply.status == 200 and reply.json()["hash"]
    for secret in profile.secrets():
        assert secret not in shown
    assert "$RCES_SDK_KEY_1" in reply.curl


def test_a_run_nothing_answered_says_so_in_the_transcript(
    closed_port_url: str, profile: Profile
) -> None:
    with Client(closed_port_url, profile, run_prefix="cf-unit") as client:
        send(client, polls(profile, 3, 0.01, "dead"), 0.0, "dead port")
        [entry] = client.transcript.exchanges
    assert entry.status is None
    assert "(open loop, dead port: 0 of 3 requests sent, none answered; no connection" in entry.url


def test_requests_leave_in_time_order_and_come_back_in_plan_order(
    reference_server: Any, profile: Profile
) -> None:
    plan = polls(profile, 3, 0.3, "order")
    shuffled = [plan[2], plan[0], plan[1]]  # planned at 0.2, 0.0, 0.1
    result = offer(str(reference_server.base_url), shuffled, latency=0.0)
    assert [r.planned for r in result.records] == shuffled
    sent = [r.sent or 0.0 for r in result.records]
    assert sent[1] < sent[2] < sent[0]
    assert sent[0] - sent[1] >= 0.19


def test_evidence_ends_an_offer_before_its_plan(far: str, profile: Profile) -> None:
    """``until`` holds on the fifth answer: the rest of a 10 s plan is never sent, and what was
    in flight is still read (100 ms away, 50/s: about five more)."""
    answers: list[Record] = []

    def fifth(record: Record) -> bool:
        answers.append(record)
        return len(answers) >= 5

    result = offer(far, polls(profile, 500, 10.0, "until"), latency=0.1, until=fifth)
    assert result.stopped_early
    assert 5 <= len(result.sent()) < 30
    assert all(r.status == 200 for r in result.sent())
    assert "the rest not sent" in result.describe()
