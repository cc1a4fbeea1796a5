"""The judges on synthetic recordings: each check fails the faulty behaviour it exists for and
passes a correct client that differs from the reference one; the noise margin never lets a
client that ignores the hint through."""

from __future__ import annotations

import random

from conformance.stages.client.judge_failures import judge_backoff, judge_retry_after
from conformance.stages.client.judge_hash import judge_last_hash
from conformance.stages.client.judge_headers import judge_headers
from conformance.stages.client.judge_hint import judge_hint, judge_jitter, judge_release
from conformance.stages.client.judge_refetch import judge_refetch
from conformance.verdict.finding import Finding
from conformance.verdict.outcome import Outcome
from tests.conformance.stages.client.timelines import (
    SETTINGS,
    every,
    instance,
    poll,
    refetch,
    scenario_run,
    settings,
)

FAIL, PASS, UNMEASURED = Outcome.FAIL, Outcome.PASS, Outcome.NOT_MEASURABLE

HINT = (2.0, 0.3)  # intervalSeconds 2 s, jitterRatio 0.3: bound 2.0 s (above), 1.4 s (symmetric)


HONOUR = "POLL-CLIENT-HONOUR-HINT"


def verdict(findings: list[Finding], rid: str) -> str:
    return next(f.outcome for f in findings if f.requirement == rid)


def hint_instance(
    name: str, cadence: list[float], hinted: list[float], after: list[float]
) -> object:
    """Polls at the own cadence, then answers carrying the hint, then a release and 304s."""
    times = every(1.0, [*cadence, *hinted, *after])
    events = []
    n_cadence, n_hint = len(cadence), len(hinted)
    for k, at in enumerate(times):
        if k < n_cadence:
            events.append(poll(at, 304))
        elif k < n_cadence + n_hint:
            events.append(poll(at, 200, hint=HINT, snapshot_hash="h1", changed=()))
        elif k == n_cadence + n_hint:
            events.append(poll(at, 200, snapshot_hash="h2", changed=(1,)))
        else:
            events.append(poll(at, 304))
    return instance(name, "hint", events, ended=times[-1] + 0.1)


def jittered(rng: random.Random, low: float, high: float, n: int) -> list[float]:
    return [low + (high - low) * rng.random() for _ in range(n)]


def hint_run(waits_of: object, reading: str = "above", instances: int = 3) -> object:
    rng = random.Random(7)
    built = [
        hint_instance(
            f"hint#{k}", [0.6] * 4, waits_of(rng) if callable(waits_of) else waits_of, [0.6] * 5
        )
        for k in range(1, instances + 1)
    ]
    return scenario_run("hint", built, settings(jitter_reading=reading))


def test_polling_every_0_3s_through_a_2s_hint_fails_whatever_the_margin() -> None:
    run = hint_run([0.3] * 12)
    assert verdict(judge_hint(run), "POLL-CLIENT-HONOUR-HINT") == FAIL
    assert verdict(judge_jitter(run), "POLL-CLIENT-HINT-JITTER") == UNMEASURED


def test_symmetric_waits_pass_the_symmetric_reading_and_fail_the_above_one() -> None:
    def symmetric(rng: random.Random) -> list[float]:
        return jittered(rng, 1.4, 2.6, 6)

    declared = hint_run(symmetric, "symmetric")
    assert verdict(judge_hint(declared), "POLL-CLIENT-HONOUR-HINT") == PASS
    assert verdict(judge_jitter(declared), "POLL-CLIENT-HINT-JITTER") == PASS
    assert verdict(judge_hint(hint_run(symmetric, "above")), "POLL-CLIENT-HONOUR-HINT") == FAIL


def test_the_default_reading_is_above_and_a_symmetric_client_is_told_to_declare() -> None:
    def symmetric(rng: random.Random) -> list[float]:
        return jittered(rng, 1.4, 2.6, 6)

    assert SETTINGS.jitter_reading == "above"  # the schema's default: spec 4.3 and 8.2
    found = judge_hint(hint_run(symmetric))  # under the default reading
    miss = next(f for f in found if f.requirement == "POLL-CLIENT-HONOUR-HINT")
    assert miss.outcome == FAIL
    assert "declares client.jitter_reading: symmetric" in str(miss.received)
    too_fast = judge_hint(hint_run([1.0] * 6))  # below even the symmetric bound: no such advice
    miss = next(f for f in too_fast if f.requirement == "POLL-CLIENT-HONOUR-HINT")
    assert miss.outcome == FAIL and "symmetric" not in str(miss.received)


def test_above_waits_pass_both_readings() -> None:
    def above(rng: random.Random) -> list[float]:
        return jittered(rng, 2.0, 2.6, 6)

    for reading in ("above", "symmetric"):
        run = hint_run(above, reading)
        assert verdict(judge_hint(run), "POLL-CLIENT-HONOUR-HINT") == PASS
        assert verdict(judge_jitter(run), "POLL-CLIENT-HINT-JITTER") == PASS


def test_a_wait_a_little_short_is_noise_but_not_a_tenth_of_a_second() -> None:
    assert verdict(judge_hint(hint_run([2.0 - 0.07] * 6)), "POLL-CLIENT-HONOUR-HINT") == PASS
    assert verdict(judge_hint(hint_run([2.0 - 0.12] * 6)), "POLL-CLIENT-HONOUR-HINT") == FAIL
    declared = "symmetric"
    assert verdict(judge_hint(hint_run([1.4 - 0.06] * 6, declared)), HONOUR) == PASS
    assert verdict(judge_hint(hint_run([1.4 - 0.1] * 6, declared)), HONOUR) == FAIL


def test_no_jitter_and_a_shared_seed_fail_the_spread() -> None:
    fixed = hint_run([2.0] * 6, "above")
    assert verdict(judge_jitter(fixed), "POLL-CLIENT-HINT-JITTER") == FAIL
    same = [2.05, 2.4, 2.2, 2.55, 2.1, 2.3]  # spread within an instance, identical across them
    assert verdict(judge_jitter(hint_run(same, "above")), "POLL-CLIENT-HINT-JITTER") == FAIL


def test_staying_slow_after_the_hint_fails_the_release() -> None:
    rng = random.Random(3)
    slow = [
        hint_instance(f"hint#{k}", [0.6] * 4, jittered(rng, 2.0, 2.6, 5), [2.0] * 4)
        for k in (1, 2, 3)
    ]
    assert verdict(judge_release(scenario_run("hint", slow)), "POLL-CLIENT-HINT-RELEASE") == FAIL
    back = [
        hint_instance(f"hint#{k}", [0.6] * 4, jittered(rng, 2.0, 2.6, 5), [0.65] * 4)
        for k in (1, 2, 3)
    ]
    assert verdict(judge_release(scenario_run("hint", back)), "POLL-CLIENT-HINT-RELEASE") == PASS


def retry_run(wait: float) -> object:
    events = [
        poll(1.0, 200, snapshot_hash="h", changed=(1,)),
        poll(1.6, 429, retry_after_s=2.0),
        poll(1.6 + 0.002 + wait, 304),
    ]
    return scenario_run("retry-after", [instance("retry-after#1", "retry-after", events, 9.0)])


def test_retry_after_is_waited_out() -> None:
    assert verdict(judge_retry_after(retry_run(0.1)), "POLL-CLIENT-RETRY-AFTER") == FAIL
    assert verdict(judge_retry_after(retry_run(2.0)), "POLL-CLIENT-RETRY-AFTER") == PASS


def backoff_run(waits_of: object, instances: int = 6, runs: int = 6) -> object:
    """Instances failing ``runs`` times in a row of len(waits) failures, a success between."""
    rng = random.Random(11)
    built = []
    for k in range(1, instances + 1):
        events = [poll(1.0, 200, snapshot_hash="h", changed=(1,))]
        at = 1.6
        for _ in range(runs):
            waits = waits_of(rng) if callable(waits_of) else waits_of
            for wait in waits:
                events.append(poll(at, 503))
                at += 0.002 + wait + 0.005 * rng.random()  # a few ms of scheduling noise
            events.append(poll(at, 304))
            at += 0.6
        built.append(instance(f"backoff-5xx#{k}", "backoff-5xx", events, at + 1))
    return scenario_run("backoff-5xx", built)


def test_backoff_must_grow_and_carry_jitter() -> None:
    def doubling(rng: random.Random) -> list[float]:
        return [0.1 * 2**k * (1 + 0.2 * rng.random()) for k in range(4)]

    def full_jitter(rng: random.Random) -> list[float]:
        return [0.1 * 2**k * rng.random() for k in range(4)]

    assert verdict(judge_backoff(backoff_run(doubling)), "POLL-CLIENT-BACKOFF") == PASS
    # each wait uniform in [0, d): a single run can end on its shortest wait, the trend holds
    assert verdict(judge_backoff(backoff_run(full_jitter)), "POLL-CLIENT-BACKOFF") == PASS
    assert verdict(judge_backoff(backoff_run([0.05] * 4)), "POLL-CLIENT-BACKOFF") == FAIL
    flat = backoff_run(lambda rng: [0.5 * rng.random() for _ in range(4)])
    assert verdict(judge_backoff(flat), "POLL-CLIENT-BACKOFF") == FAIL
    lockstep = [0.1 * 2**k for k in range(4)]
    found = judge_backoff(backoff_run(lockstep))
    assert verdict(found, "POLL-CLIENT-BACKOFF") == FAIL
    assert "lockstep" in found[0].title
    # two instances cannot show lockstep: judged on growth only
    assert verdict(judge_backoff(backoff_run(lockstep, 2)), "POLL-CLIENT-BACKOFF") == PASS


def test_too_few_failures_to_show_growth_are_not_measurable() -> None:
    short = backoff_run([0.1, 0.2, 0.4, 0.8], instances=1, runs=1)
    assert verdict(judge_backoff(short), "POLL-CLIENT-BACKOFF") == UNMEASURED


def hash_run(sent: list[str | None], transport: str = "if-none-match") -> object:
    answered = ["h1", "h1", "h2", "h2"]
    events = []
    for k, (value, snapshot) in enumerate(zip(sent, answered, strict=True)):
        form = (
            {"query": {"hash": value}}
            if transport == "query"
            else {"headers": {"if-none-match": f'"{value}"'}}
        )
        status = 200 if k in (0, 2) else 304
        events.append(
            poll(1.0 + k, status, snapshot_hash=snapshot, **(form if value is not None else {}))
        )
    run = instance("last-hash#1", "last-hash", events, 6.0)
    return scenario_run("last-hash", [run], settings(hash_transport=transport))


def test_the_last_hash_in_the_profiles_form() -> None:
    good = [None, "h1", "h1", "h2"]
    assert verdict(judge_last_hash(hash_run(good)), "POLL-CLIENT-SEND-LAST-HASH") == PASS
    assert verdict(judge_last_hash(hash_run(good, "query")), "POLL-CLIENT-SEND-LAST-HASH") == PASS
    stale = [None, "h1", "h1", "h1"]
    assert verdict(judge_last_hash(hash_run(stale)), "POLL-CLIENT-SEND-LAST-HASH") == FAIL
    missing = [None, None, None, None]
    assert verdict(judge_last_hash(hash_run(missing)), "POLL-CLIENT-SEND-LAST-HASH") == FAIL


def test_instance_id_and_numeric_header_bounds() -> None:
    def run_with(headers: dict[str, str]) -> object:
        events = [poll(1.0, 200, headers=headers), poll(2.0, 304, headers=headers)]
        return scenario_run("last-hash", [instance("last-hash#1", "last-hash", events, 3.0)])

    findings = judge_headers(run_with({"project-id": "17"}))
    assert verdict(findings, "SDK-CLIENT-INSTANCE-ID") == PASS
    assert verdict(findings, "SDK-CLIENT-NUMERIC-HEADER") == PASS
    long_id = judge_headers(run_with({"server-id": "x" * 129}))
    assert verdict(long_id, "SDK-CLIENT-INSTANCE-ID") == FAIL
    for bad in ("0", "9007199254740992", "-3", "many"):
        numeric = judge_headers(run_with({"project-id": bad}))
        assert verdict(numeric, "SDK-CLIENT-NUMERIC-HEADER") == FAIL, bad
    # "when a client sends it": never sent, the rule neither held nor broke
    unsent = judge_headers(run_with({"server-id": "a"}))
    assert verdict(unsent, "SDK-CLIENT-NUMERIC-HEADER") == Outcome.NOT_APPLICABLE


def test_the_numeric_header_judge_reads_the_declared_grammar() -> None:
    """The client judge agrees with the server's (oracles/numeric_header.py): declared
    decimal-digits fails +5 and 0x10; declared javascript-number passes them; undeclared, a
    spelling some reader takes passes (the grammar is a convention) and text still fails."""

    def judged(value: str, grammar: str, declared: bool) -> str:
        events = [poll(1.0, 200, headers={"project-id": value})]
        run = scenario_run(
            "last-hash",
            [instance("last-hash#1", "last-hash", events, 2.0)],
            settings(numeric_grammar=grammar, numeric_grammar_declared=declared),
        )
        return verdict(judge_headers(run), "SDK-CLIENT-NUMERIC-HEADER")

    for value in ("+5", "0x10"):
        assert judged(value, "decimal-digits", True) == FAIL, value
        assert judged(value, "javascript-number", True) == PASS, value
        assert judged(value, "decimal-digits", False) == PASS, value
    for value in ("abc", "0", "NaN"):
        assert judged(value, "decimal-digits", False) == FAIL, value
        assert judged(value, "javascript-number", True) == FAIL, value


def refetch_run(extra: list[dict[str, object]], mode: str = "bootstrap") -> object:
    events = [
        poll(1.0, 200, changed=(1, 2)),
        refetch(1.01)
        if mode == "bootstrap"
        else refetch(1.01, "/sdk/v2/configurations/1", refetched=(1,)),
        *(
            []
            if mode == "bootstrap"
            else [refetch(1.02, "/sdk/v2/configurations/2", refetched=(2,))]
        ),
        poll(2.0, 200, changed=()),
        *extra,
        poll(3.0, 304),
    ]
    run = instance("refetch#1", "refetch", events, 4.0)
    return scenario_run("refetch", [run], settings(refetch_request=mode))


def test_refetch_exactly_the_moved_through_the_declared_request() -> None:
    assert verdict(judge_refetch(refetch_run([])), "POLL-CLIENT-REFETCH-CHANGED") == PASS
    per = "/sdk/v2/configurations/{id}"
    assert verdict(judge_refetch(refetch_run([], per)), "POLL-CLIENT-REFETCH-CHANGED") == PASS
    needless = refetch_run([refetch(2.01)])
    assert verdict(judge_refetch(needless), "POLL-CLIENT-REFETCH-CHANGED") == FAIL


def held_hint_run(after_304: list[float]) -> object:
    """Three instances: the hint on 200s, then 304s (the hint held), then the release."""
    rng = random.Random(5)
    built = []
    for k in (1, 2, 3):
        on_200 = jittered(rng, 2.0, 2.6, 3)
        times = every(1.0, [0.6] * 4 + on_200 + after_304 + [0.6] * 4)
        events = []
        for n, at in enumerate(times):
            if n < 4:
                events.append(poll(at, 304))
            elif n < 4 + len(on_200):
                events.append(poll(at, 200, hint=HINT, snapshot_hash="h1", changed=()))
            elif n < 4 + len(on_200) + len(after_304):
                events.append(poll(at, 304, snapshot_hash="h1"))
            elif n == 4 + len(on_200) + len(after_304):
                events.append(poll(at, 200, snapshot_hash="h2", changed=(1,)))
            else:
                events.append(poll(at, 304))
        built.append(instance(f"hint#{k}", "hint", events, ended=times[-1] + 0.1))
    return scenario_run("hint", built)


def test_a_304_does_not_release_the_hint() -> None:
    rng = random.Random(8)
    kept = held_hint_run(jittered(rng, 2.0, 2.6, 3))
    assert verdict(judge_hint(kept), "POLL-CLIENT-HONOUR-HINT") == PASS
    assert verdict(judge_release(kept), "POLL-CLIENT-HINT-RELEASE") == PASS
    # back to the own cadence on the first 304: polling was never gone from a response
    dropped = held_hint_run([0.6] * 3)
    assert verdict(judge_hint(dropped), "POLL-CLIENT-HONOUR-HINT") == FAIL


def test_a_refused_connection_shows_as_one_in_the_timeline() -> None:
    from conformance.stages.client.evidence import Timeline, intervals

    events = [poll(1.0, 200, snapshot_hash="h"), poll(1.6, None, read=False, method="")]
    events += [poll(1.8, None, read=False, method=""), poll(2.2, 304)]
    run = scenario_run(
        "backoff-refused", [instance("backoff-refused#1", "backoff-refused", events, 3.0)]
    )
    lines = Timeline(run).render().splitlines()
    assert "connection refused (reset on accept): no request read" in lines[1]
    assert "GET" not in lines[1] and "no hash" not in lines[1]
    assert "GET /sdk/v2/status no hash" in lines[0]
    exchange = Timeline(run).exchanges[1]
    assert exchange.method == "-" and exchange.status is None
    assert [i["after"] for i in intervals(run)] == ["200", "refused", "refused"]


def test_one_bootstrap_per_200_that_moved_anything_the_first_200_included() -> None:
    def first_200(*between: dict[str, object]) -> object:
        events = [poll(1.0, 200, changed=(1, 2)), *between, poll(2.0, 304), poll(3.0, 304)]
        return scenario_run("refetch", [instance("refetch#1", "refetch", events, 4.0)])

    rid = "POLL-CLIENT-REFETCH-CHANGED"
    assert verdict(judge_refetch(first_200(refetch(1.01))), rid) == PASS
    # the first 200 is a change: the client held nothing
    assert verdict(judge_refetch(first_200()), rid) == FAIL
    # one bootstrap per 200, not one per moved configuration
    assert verdict(judge_refetch(first_200(refetch(1.01), refetch(1.02))), rid) == FAIL
