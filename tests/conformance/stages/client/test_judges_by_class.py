"""The judges over their rule's whole space (issue 31): the hash and the identity headers on
every request of every scenario, off the happy path too (after a 5xx, a 429, a reset), the
If-None-Match by its grammar, and the hint's spread from poll to poll of every instance. Each
check fails the faulty behaviour of its class and passes a correct client that differs."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from conformance.stages.client.dropin import split
from conformance.stages.client.judge_hash import judge_last_hash
from conformance.stages.client.judge_headers import judge_headers
from conformance.stages.client.judge_hint import judge_jitter
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.spread_criterion import per_poll_spread
from conformance.verdict.difference import Difference
from conformance.verdict.finding import Finding
from conformance.verdict.outcome import Outcome
from tests.conformance.stages.client.test_judges import hint_instance, jittered
from tests.conformance.stages.client.timelines import instance, poll, scenario_run, settings

FAIL, PASS = Outcome.FAIL, Outcome.PASS

HASH = "POLL-CLIENT-SEND-LAST-HASH"
INSTANCE_ID = "SDK-CLIENT-INSTANCE-ID"
JITTER = "POLL-CLIENT-HINT-JITTER"
PER_POLL = "POLL-CLIENT-HINT-JITTER-PER-POLL"


def verdict(findings: Sequence[Finding | Difference], rid: str) -> str:
    return next(f.outcome for f in split(findings)[0] if f.requirement == rid)


def failure_run(
    if_none_match: list[str | None], ids: list[str] | None = None, refused: bool = False
) -> ScenarioRun:
    """A 200 (hash h1), then a 503, a 429 and a reset connection (or one refused on accept),
    then a 304: what each poll carried is given."""
    answers: list[dict[str, Any]] = [
        {"status": 200, "snapshot_hash": "h1"},
        {"status": 503},
        {"status": 429},
        {"status": None, "read": not refused},
        {"status": 304, "snapshot_hash": "h1"},
    ]
    events = []
    for k, answer in enumerate(answers):
        headers = {} if if_none_match[k] is None else {"if-none-match": if_none_match[k]}
        if ids is not None:
            headers["server-id"] = ids[k]
        events.append(poll(1.0 + k, headers=headers, **answer))
    return scenario_run("backoff-5xx", [instance("backoff-5xx#1", "backoff-5xx", events, 7.0)])


def test_the_hash_is_sent_back_after_every_kind_of_failure() -> None:
    kept = [None, '"h1"', '"h1"', '"h1"', '"h1"']
    assert verdict(judge_last_hash(failure_run(kept)), HASH) == PASS
    for k in (2, 3, 4):  # forgotten after the 503, the 429 or the reset
        forgotten = [*kept[:k], None, *kept[k + 1 :]]
        assert verdict(judge_last_hash(failure_run(forgotten)), HASH) == FAIL, k
    # a refused connection carried nothing: it is not judged, the poll after it is
    refused = failure_run([None, '"h1"', '"h1"', None, '"h1"'], refused=True)
    assert verdict(judge_last_hash(refused), HASH) == PASS


def test_if_none_match_is_judged_by_its_grammar() -> None:
    weak = [None, 'W/"h1"', 'W/"h1"', 'W/"h1"', 'W/"h1"']  # weak comparison: a correct form
    assert verdict(judge_last_hash(failure_run(weak)), HASH) == PASS
    for bad in ('w/"h1"', '"h1', '"h1" x', '"h1", "h2"', "h1 h2", "*"):
        sent = [None, bad, '"h1"', '"h1"', '"h1"']
        findings = judge_last_hash(failure_run(sent))
        assert verdict(findings, HASH) == FAIL, bad
    # the bare hash carries the hash (spec 4.3: "the last hash seen"): a form, not a fault
    bare = [None, "h1", '"h1"', '"h1"', '"h1"']
    assert verdict(judge_last_hash(failure_run(bare)), HASH) == PASS


def test_the_instance_id_given_is_sent_after_every_failure() -> None:
    given = "id-backoff-5xx#1"
    kept = [None, '"h1"', '"h1"', '"h1"', '"h1"']
    assert verdict(judge_headers(failure_run(kept, [given] * 5)), INSTANCE_ID) == PASS
    renewed = [given, given, given, given, f"{given}#1"]  # a new session after the reset
    assert verdict(judge_headers(failure_run(kept, renewed)), INSTANCE_ID) == FAIL
    other = ["another-id"] * 5  # constant, but not the id it was given
    assert verdict(judge_headers(failure_run(kept, other)), INSTANCE_ID) == FAIL
    control = [given, given, "id\x01", given, given]
    assert verdict(judge_headers(failure_run(kept, control)), INSTANCE_ID) == FAIL


def spread_run(drawn_once: bool, seed: int, instances: int = 4, waits: int = 5) -> ScenarioRun:
    rng = random.Random(seed)
    built = []
    for k in range(1, instances + 1):
        once = jittered(rng, 2.0, 2.6, 1)[0]
        hinted = (
            [once + 0.01 * rng.random() for _ in range(waits)]
            if drawn_once
            else jittered(rng, 2.0, 2.6, waits)
        )
        built.append(hint_instance(f"hint#{k}", [0.6] * 4, hinted, [0.6] * 5))
    return scenario_run("hint", built, settings())


def test_a_spread_drawn_once_per_instance_keeps_the_spec_and_misses_the_convention() -> None:
    """Spec 4.3 says 'spread by jitterRatio'; a fresh draw per poll is the convention."""
    for seed in range(5):
        once = judge_jitter(spread_run(True, seed))
        assert verdict(once, JITTER) == PASS, seed
        assert verdict(once, PER_POLL) == FAIL, seed
        fresh = judge_jitter(spread_run(False, seed))
        assert verdict(fresh, JITTER) == PASS, seed
        assert verdict(fresh, PER_POLL) == PASS, seed


def test_the_per_poll_criterion_needs_three_instances_of_three_waits() -> None:
    assert not per_poll_spread([[2.1, 2.2, 2.3], [2.4, 2.5, 2.6]]).judged
    assert not per_poll_spread([[2.1, 2.2], [2.4, 2.5], [2.0, 2.05]]).judged
    clustered = per_poll_spread([[2.0 + k / 10 + j / 1000 for j in range(5)] for k in range(4)])
    assert clustered.judged and clustered.clustered
