"""The load stage's judging, on made-up records: each rule passes a correct run, fails the
defect it names, and blames the generator only for its own shortfall."""

from __future__ import annotations

import random

from conformance.stages.load import judge
from conformance.stages.load.plan import Plan
from conformance.stages.load.records import ANONYMOUS, NOISY, WELL_BEHAVED, Poll, Results, Write
from conformance.stages.load.rules import (
    Hint,
    PollerState,
    Reading,
    error_body_problem,
    read_hint,
    read_snapshot,
)
from conformance.stages.load.series import Rate, per_second
from conformance.verdict.outcome import Outcome

PASS, FAIL, NOT_MEASURABLE, NOT_CONFIGURED = (
    Outcome.PASS,
    Outcome.FAIL,
    Outcome.NOT_MEASURABLE,
    Outcome.NOT_CONFIGURED,
)

T0 = 1_000_000.0
DECLARED = judge.Declared(burst=60, refill=30.0, threshold=150.0, margin=0.25, propagation_s=1.0)


def plan(**changes: object) -> Plan:
    values: dict[str, object] = dict(
        base_url="http://127.0.0.1:1", sdk_key="k", pat="p", environment_header="environment",
        environment="development", environment_id=1, instance_header="server-id",
        application_id=1, configuration_id=7, operations_field="operations", fleet=100,
        cadence_s=5.0, jitter_ratio=0.2, run_s=30.0, ramp_s=3.0, write_interval_s=4.0, noisy=1,
        noisy_rate=90.0, anonymous=3, anonymous_rate=27.0, timeout_s=5.0, run_tag="t",
        noisy_window=(10.0, 14.0), anonymous_window=(16.0, 20.0),
    )  # fmt: skip
    values.update(changes)
    return Plan(**values)  # type: ignore[arg-type]


def poll(
    at: float,
    status: int = 200,
    kind: str = WELL_BEHAVED,
    who: str = "i1",
    seen: str = "",
    hint: int = 0,
    problem: str = "",
    retry: float | None = None,
    latency: float = 0.002,
) -> Poll:
    return Poll(T0 + at, T0 + at, latency, status, kind, who, seen, hint, problem, retry, "h")


def results(polls: list[Poll], writes: list[Write] | None = None, initial: str = "") -> Results:
    return Results(started=T0, polls=sorted(polls), writes=writes or [], initial_hash=initial)


def test_a_5xx_or_no_answer_fails_and_nothing_excuses_it() -> None:
    assert judge.no_server_error(results([poll(1)])).outcome == PASS
    found = judge.no_server_error(results([poll(1), poll(2, status=0, problem="no answer")]))
    assert found.outcome == FAIL and "1 of 2 polls" in found.received


def test_well_behaved_429_fails_own_buckets_and_noisy_must_be_throttled() -> None:
    fine = [
        poll(i / 90, status=429 if i > 60 else 304, kind=NOISY, who="n", retry=1)
        for i in range(360)
    ]
    assert judge.own_buckets_measured(results(fine), plan(), DECLARED).outcome == PASS
    assert judge.noisy_throttled(results(fine), plan(), DECLARED).outcome == PASS
    collided = [*fine, poll(12, status=429, retry=1)]
    assert judge.own_buckets(results(collided), plan(), DECLARED).outcome == FAIL
    unlimited = [poll(i / 90, status=304, kind=NOISY, who="n") for i in range(360)]
    assert judge.noisy_throttled(results(unlimited), plan(), DECLARED).outcome == FAIL
    short = [poll(i / 90, status=304, kind=NOISY, who="n") for i in range(100)]
    found = judge.noisy_throttled(results(short), plan(), DECLARED)
    assert found.outcome == NOT_MEASURABLE and "shortfall" in found.note


def test_pollers_without_id_must_share_one_bucket() -> None:
    shared = [
        poll(16 + i / 81, status=200 if i < 150 else 429, kind=ANONYMOUS, who=f"a{i % 3}", retry=1)
        for i in range(300)
    ]
    assert judge.shared_bucket(results(shared), plan(), DECLARED).outcome == PASS
    separate = [poll(16 + i / 81, kind=ANONYMOUS, who=f"a{i % 3}") for i in range(324)]
    found = judge.shared_bucket(results(separate), plan(), DECLARED)
    assert found.outcome == FAIL and "324 of 324 served" in found.received


def herd(hinted: bool, stays: bool) -> list[Poll]:
    """500 polls in the first second, then 30/s for 20 s; the hint while loaded (and after)."""
    polls = [poll(i / 500, hint=int(hinted and i > 150), who=f"i{i}") for i in range(500)]
    polls += [poll(2 + i / 30, hint=int(stays), who=f"q{i}") for i in range(600)]
    return polls


def test_hint_appears_over_the_threshold_and_goes_within_the_bound() -> None:
    good = results(herd(hinted=True, stays=False))
    assert judge.hint_under_load(good, plan(), DECLARED).outcome == PASS
    assert judge.hint_absent_when_quiet(good, DECLARED, after=True).outcome == PASS
    found, took = judge.convergence(good, plan(), DECLARED)
    assert found.outcome == PASS and took is not None and took < judge.convergence_bound(plan())
    never = results(herd(hinted=False, stays=False))
    assert judge.hint_under_load(never, plan(), DECLARED).outcome == FAIL
    stuck = results(herd(hinted=True, stays=True))
    assert judge.hint_absent_when_quiet(stuck, DECLARED, after=True).outcome == FAIL
    assert judge.convergence(stuck, plan(), DECLARED)[0].outcome == FAIL


def slotted(hints: bool) -> list[Poll]:
    """160/s for 3 s with 80 more polls in 20 ms at t=1; the hint as a service counting its
    trailing second in ten 100 ms slots decides it (the current slot and the nine before)."""
    times = sorted([i / 160 for i in range(480)] + [1 + i / 4000 for i in range(80)])
    polls = []
    for k, at in enumerate(times):
        tick = int(at * 10)
        counted = sum(1 for t in times[: k + 1] if tick - 10 < int(t * 10) <= tick)
        polls.append(poll(at, hint=int(hints and counted > 150), who=f"s{k}"))
    return polls


def test_the_hint_is_judged_in_the_services_own_window() -> None:
    """Just after a burst leaves the service's slotted window it may not hint although the
    generator's trailing second still holds the burst: not judged; with the burst inside both
    views it must hint."""
    rate = Rate(results(slotted(True)).polls)
    after = T0 + 2.01  # the burst's first half is still in the trailing second, not in the slots
    assert rate.trailing(after) > 187.5 and not judge.over_in_view(rate, after, 187.5, 1.0)
    assert judge.hint_under_load(results(slotted(True)), plan(), DECLARED).outcome == PASS
    assert judge.hint_under_load(results(slotted(False)), plan(), DECLARED).outcome == FAIL


def test_hint_rules_not_configured_without_a_declared_threshold() -> None:
    undeclared = judge.Declared(60, 30.0, None, 0.25, 1.0)
    found = judge.hint_under_load(results(herd(True, False)), plan(), undeclared)
    assert found.outcome == NOT_CONFIGURED and found.key == "load.shedding_threshold"


def test_a_target_too_slow_to_answer_the_band_is_named_not_the_generator() -> None:
    slow = results([poll(i / 300, latency=2 * i / 300) for i in range(300)])  # 100/s answered
    found = judge.hint_under_load(slow, plan(), DECLARED)
    assert found.outcome == NOT_MEASURABLE and "its own slowness" in found.note


def test_a_load_below_the_band_is_the_generators_shortfall() -> None:
    quiet = results([poll(i / 30) for i in range(300)])
    found = judge.hint_under_load(quiet, plan(), DECLARED)
    assert found.outcome == NOT_MEASURABLE and "peak" in found.note


def test_every_poll_after_a_write_sees_its_hash() -> None:
    writes = [Write(T0 + 5, T0 + 5.1, 200, "h1", ""), Write(T0 + 9, T0 + 9.1, 200, "h2", "")]
    fresh = [poll(4, seen="h0"), poll(6.5, seen="h1"), poll(11, seen="h2", status=304)]
    assert judge.write_visible(results(fresh, writes, "h0"), plan(), DECLARED).outcome == "pass"
    late_but_allowed = [poll(5.5, seen="h0")]  # within propagation_s of the write
    assert (
        judge.write_visible(results(late_but_allowed, writes, "h0"), plan(), DECLARED).outcome
        == "pass"
    )
    missing = [*fresh, poll(7, seen="", who="i8")]  # the configuration not in the snapshot
    assert judge.write_visible(results(missing, writes, "h0"), plan(), DECLARED).outcome == "fail"
    stale = [*fresh, poll(12, seen="h1", who="i9", status=304)]
    found = judge.write_visible(results(stale, writes, "h0"), plan(), DECLARED)
    assert found.outcome == FAIL and "i9" in found.received


def test_malformed_error_bodies_and_bare_429s_fail() -> None:
    bad = results([poll(1, status=429, problem="error body is not JSON", retry=None)])
    assert judge.error_bodies(bad, shape=False).outcome == FAIL
    assert judge.error_bodies(bad, shape=True).outcome == PASS
    assert judge.retry_after(bad).outcome == FAIL


def test_a_missing_conventional_field_is_a_difference_and_a_declared_one_fails() -> None:
    """errorCode left at its default (a convention): a body lacking it is not held against the
    target (the test notes a difference); declared, it fails; another problem still fails."""
    problem = error_body_problem(
        b'{"detail": "slow down"}', "application/json", "errorCode", "message"
    )
    lacking = results([poll(1, status=429, problem=problem, retry=1.0)])
    assert judge.error_bodies(lacking, shape=True).outcome == FAIL
    conventions = frozenset({"errorCode", "message"})
    assert judge.error_bodies(lacking, shape=True, conventions=conventions).outcome == PASS
    assert len(judge.departures(lacking, conventions)) == 1
    only_code = frozenset({"errorCode"})  # message declared: its lack still fails
    assert judge.error_bodies(lacking, shape=True, conventions=only_code).outcome == FAIL
    # A JSON body that is no object breaks the shape, not the JSON body (4.3 r4).
    other = results([poll(1, status=429, problem="error body is not an object", retry=1.0)])
    assert judge.error_bodies(other, shape=False).outcome == PASS
    assert judge.error_bodies(other, shape=True, conventions=conventions).outcome == FAIL
    assert judge.departures(other, conventions) == []
    # Not JSON at all fails the JSON body whatever is declared.
    plain = results([poll(1, status=400, problem="error body is not JSON")])
    assert judge.error_bodies(plain, shape=False).outcome == FAIL
    no_code = error_body_problem(b'{"detail": "x"}', "application/problem+json", None, "detail")
    assert no_code == ""  # errors.code_field: null, and any JSON media type


def test_a_declared_5xx_rate_limit_refusal_is_a_refusal_not_a_server_error() -> None:
    refused = results([poll(1, status=503, retry=1.0)])
    assert judge.no_server_error(refused).outcome == FAIL
    assert judge.no_server_error(refused, refusal=503).outcome == PASS
    assert judge.retry_after(refused, refusal=503).outcome == PASS
    assert judge.retry_after(results([poll(1, status=503)]), refusal=503).outcome == FAIL


def test_the_client_rules_of_one_instance() -> None:
    state = PollerState(5.0, 0.2, rng=random.Random(1))
    assert state.request_headers() == {}
    body = (
        b'{"hash":"s1","configurations":[{"id":7,"hash":"c1"}],'
        b'"polling":{"intervalSeconds":30,"jitterRatio":0.1}}'
    )
    reading = read_snapshot(body, 7)
    assert state.succeeded(200, reading) == "c1"
    assert state.request_headers() == {"If-None-Match": '"s1"'}
    assert 30 <= state.next_delay() <= 33  # the hint's interval, its jitter above it
    assert state.succeeded(304, None) == "c1" and state.hint is not None  # a 304 keeps it
    assert state.succeeded(200, Reading(snapshot_hash="s2", config_hash="c2")) == "c2"
    assert state.hint is None and 5 <= state.next_delay() <= 6  # gone: own cadence
    assert state.failed(retry_after=12) == 12 and state.failed(None) == 10  # backoff doubles
    assert read_hint({"intervalSeconds": 0, "jitterRatio": 2})[1].startswith("polling values")


def test_the_fleet_never_polls_faster_than_a_hint_and_keeps_its_cadence_on_average() -> None:
    """Under a hint every wait is at least intervalSeconds (spec 4.3 "no faster than", 8.2 "a
    minimum interval"): a fleet that came in early would break the rule it keeps. At the own
    cadence the waits spread around it, so the fleet offers its planned rate."""
    state = PollerState(5.0, 0.2, min_interval_s=1.0, rng=random.Random(2))
    hinted = Reading(snapshot_hash="s1", hint=Hint(10.0, 0.5), hint_present=True)
    state.succeeded(200, hinted)
    waits = [state.next_delay() for _ in range(2000)]
    assert min(waits) >= 10.0 and max(waits) < 15.0
    assert max(waits) > 14.5  # spread over the whole [I, I(1 + r))
    state.succeeded(200, Reading(snapshot_hash="s2"))
    own = [state.next_delay() for _ in range(2000)]
    assert min(own) < 4.1 and max(own) > 5.9  # symmetric: [4, 6)
    assert 4.9 < sum(own) / len(own) < 5.1


def test_rates_and_series() -> None:
    run = results([poll(i / 100) for i in range(200)])
    assert Rate(run.polls).trailing(T0 + 1.0) == 100
    rows = per_second(run)
    assert [row["rps"] for row in rows] == [100, 100]


def test_the_plan_keeps_credentials_out_of_its_public_view_and_shards_large_fleets() -> None:
    from conformance.profile import parse
    from conformance.stages.load.plan import plan_from

    profile = parse(
        "credentials: {pat: svc_pat_unit, sdk_keys: [{key: svc_pk_dev, "
        "environments: [development]}]}\n"
        "project: {application_id: 1, environments: {development: 1}}\n"
    )
    small = plan_from(profile, "http://127.0.0.1:1/", "t", 7)
    large = plan_from(profile, "http://127.0.0.1:1", "t", 7, fleet=50_000)
    assert Plan.from_json(small.to_json()) == small
    assert "svc_p" not in repr(small) and "svc_p" not in str(small.public())
    assert small.base_url == "http://127.0.0.1:1" and small.shard == 1 and small.users == 1000
    assert large.shard == 50 and large.users == 1000
    assert small.noisy_rate == 90.0 and small.anonymous_rate == 27.0  # refill 30/s by default


def hysteresis(stays: bool) -> list[Poll]:
    """500/s for a second, 100/s for 10 s (under the threshold 150/s, over a release of 75/s),
    then 30/s for 10 s: a shedder with hysteresis keeps the hint through the middle phase."""
    polls = [poll(i / 500, hint=int(i > 150), who=f"i{i}") for i in range(500)]
    polls += [poll(1 + i / 100, hint=1, who=f"m{i}") for i in range(1000)]
    polls += [poll(11 + i / 30, hint=int(stays), who=f"q{i}") for i in range(300)]
    return polls


def test_a_declared_release_threshold_waits_for_release_before_judging_the_hint_gone() -> None:
    from dataclasses import replace

    declared = replace(DECLARED, release=75.0)
    released = results(hysteresis(stays=False))
    # Undeclared, the middle phase is quiet by the shedding threshold: the hint there fails.
    assert judge.hint_absent_when_quiet(released, DECLARED, after=True).outcome == FAIL
    # Declared, only the phase under the release threshold is quiet: the shedder passes.
    assert judge.hint_absent_when_quiet(released, declared, after=True).outcome == PASS
    assert judge.hint_absent_when_quiet(released, declared, after=False).outcome == PASS
    # A hint that stays under the release threshold still fails.
    stuck = results(hysteresis(stays=True))
    found = judge.hint_absent_when_quiet(stuck, declared, after=True)
    assert found.outcome == FAIL and "56/s" in found.expected
