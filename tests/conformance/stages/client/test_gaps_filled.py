"""Correct clients that fill the spec's gaps their own way (issue 37): the If-None-Match form and
the first request are keys, judged against a declaration at the interface level and as drop-in
differences when left at their defaults; the environment alias and the authorization header are
judged on every request; a refetch template with a query string is routed by its target."""

from __future__ import annotations

from typing import Any

from conformance.stages.client.dropin import Judged, split
from conformance.stages.client.judge_failures import judge_backoff
from conformance.stages.client.judge_hash import judge_last_hash
from conformance.stages.client.judge_headers import judge_headers
from conformance.stages.client.recording import KEY_PLACEHOLDER, Recorded
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.server import ScriptedApp
from conformance.stages.client.settings import ClientSettings, settings_from
from conformance.verdict.difference import Difference
from conformance.verdict.outcome import Outcome
from tests.conformance.stages.client.timelines import (
    SETTINGS,
    instance,
    poll,
    refetch,
    scenario_run,
    settings,
)

FAIL, PASS = Outcome.FAIL, Outcome.PASS
HASH = "POLL-CLIENT-SEND-LAST-HASH"
ALIAS = "SDK-CLIENT-ENV-ALIAS"
AUTHORIZATION = "SDK-CLIENT-AUTHORIZATION"


def outcome(judged: list[Judged], rid: str) -> Outcome:
    findings, _ = split(judged)
    return next(f.outcome for f in findings if f.requirement == rid)


def differences(judged: list[Judged]) -> list[Difference]:
    return split(judged)[1]


def run_of(events: list[dict[str, Any]], client: ClientSettings = SETTINGS) -> ScenarioRun:
    return scenario_run("last-hash", [instance("last-hash#1", "last-hash", events, 9.0)], client)


def polls(*sent: str | None) -> list[dict[str, Any]]:
    """A 200 (hash h1), then 304s; each poll's If-None-Match as given."""
    events = []
    for k, value in enumerate(sent):
        headers = {} if value is None else {"if-none-match": value}
        status = 200 if k == 0 else 304
        events.append(poll(1.0 + k, status=status, snapshot_hash="h1", headers=headers))
    return events


def declared(**keys: str) -> ClientSettings:
    return settings(**keys, declared=frozenset(keys))


def test_the_bare_hash_is_a_drop_in_difference_unless_declared() -> None:
    bare = polls(None, "h1", "h1")
    judged = judge_last_hash(run_of(bare))
    assert outcome(judged, HASH) == PASS
    assert [d.key for d in differences(judged)] == ["client.if_none_match_form"]
    # declared bare or any: nothing to note; declared quoted: its own declaration is broken
    for form in ("bare", "any"):
        judged = judge_last_hash(run_of(bare, declared(if_none_match_form=form)))
        assert outcome(judged, HASH) == PASS and not differences(judged), form
    broken = judge_last_hash(run_of(bare, declared(if_none_match_form="quoted")))
    assert FAIL in [f.outcome for f in split(broken)[0]]
    # a quoted client under a declared bare form breaks that declaration; the default passes it
    quoted = polls(None, '"h1"', '"h1"')
    assert not differences(judge_last_hash(run_of(quoted)))
    judged = judge_last_hash(run_of(quoted, declared(if_none_match_form="bare")))
    assert FAIL in [f.outcome for f in split(judged)[0]]


def test_a_wrong_hash_fails_in_either_form() -> None:
    for form in ("bare", "any"):
        client = declared(if_none_match_form=form)
        assert outcome(judge_last_hash(run_of(polls(None, "h2", "h1"), client)), HASH) == FAIL
        assert outcome(judge_last_hash(run_of(polls(None, '"h2"', "h1"), client)), HASH) == FAIL


def bootstrap_first(first_poll: str | None) -> list[dict[str, Any]]:
    headers = {} if first_poll is None else {"if-none-match": first_poll}
    return [
        refetch(0.5, snapshot_hash="h1", whole=True),
        poll(1.0, status=304, snapshot_hash="h1", headers=headers),
        poll(2.0, status=304, snapshot_hash="h1", headers={"if-none-match": '"h1"'}),
    ]


def test_a_bootstrap_first_client_sends_its_hash_back() -> None:
    client = declared(first_request="bootstrap")
    judged = judge_last_hash(run_of(bootstrap_first('"h1"'), client))
    assert outcome(judged, HASH) == PASS and not differences(judged)
    # the bootstrap's hash is the last hash seen: forgetting it on the first poll is a fault
    assert outcome(judge_last_hash(run_of(bootstrap_first(None), client)), HASH) == FAIL
    # undeclared, the bootstrap first is a difference only; declared status, a failure
    judged = judge_last_hash(run_of(bootstrap_first('"h1"')))
    assert outcome(judged, HASH) == PASS
    assert [d.key for d in differences(judged)] == ["client.first_request"]
    judged = judge_last_hash(run_of(bootstrap_first('"h1"'), declared(first_request="status")))
    assert FAIL in [f.outcome for f in split(judged)[0]]
    # declared bootstrap, a client that polls first breaks it; "any" takes both
    assert FAIL in [
        f.outcome for f in split(judge_last_hash(run_of(polls(None, '"h1"'), client)))[0]
    ]
    judged = judge_last_hash(run_of(polls(None, '"h1"'), declared(first_request="any")))
    assert outcome(judged, HASH) == PASS and not differences(judged)


def test_a_hash_before_any_was_seen_is_a_convention_miss() -> None:
    judged = judge_last_hash(run_of(polls('"h0"', '"h1"', '"h1"')))
    assert outcome(judged, HASH) == PASS
    assert [d.key for d in differences(judged)] == ["client.first_request"]


def headers_run(**headers: str) -> ScenarioRun:
    events = [
        poll(1.0 + k, status=304, headers={"authorization": KEY_PLACEHOLDER, **headers})
        for k in range(3)
    ]
    return run_of(events)


def test_the_environment_alias_is_allowed_and_in_scope() -> None:
    for fine in ({}, {"environment": "development"}, {"environment": "studio"}):
        assert outcome(list(judge_headers(headers_run(**fine))), ALIAS) == PASS, fine
    for wrong in ("production", "staging", "", "Development"):
        judged = list(judge_headers(headers_run(environment=wrong)))
        assert outcome(judged, ALIAS) == FAIL, wrong


def test_the_authorization_is_the_key_itself() -> None:
    assert outcome(list(judge_headers(headers_run())), AUTHORIZATION) == PASS
    for wrong in (f"Bearer {KEY_PLACEHOLDER}", "svc_pk_other"):
        judged = list(judge_headers(headers_run(authorization=wrong)))
        assert outcome(judged, AUTHORIZATION) == FAIL, wrong


def record(path: str, raw_query: str = "") -> Recorded:
    return Recorded("last-hash#1", 1, "GET", path, {}, {}, 0.0, "other", raw_query=raw_query)


def test_a_refetch_template_with_a_query_string_is_routed_by_its_target() -> None:
    app = ScriptedApp(settings(refetch_request="/sdk/v2/bootstrap?configuration={id}"), "k", 0.0)
    assert app._per_config_id(record("/sdk/v2/bootstrap", "configuration=3")) == "3"
    assert app._per_config_id(record("/sdk/v2/bootstrap")) is None  # a whole bootstrap
    assert app._kind(record("/sdk/v2/bootstrap")) == "refetch"
    plain = ScriptedApp(settings(refetch_request="/sdk/v2/configurations/{id}"), "k", 0.0)
    assert plain._per_config_id(record("/sdk/v2/configurations/4", "x=1")) == "4"
    assert plain._per_config_id(record("/sdk/v2/bootstrap", "configuration=3")) is None


def test_baseline_entries_of_a_client_profile_are_read(tmp_path: Any) -> None:
    profile = tmp_path / "client.yaml"
    profile.write_text(
        "client:\n  if_none_match_form: bare\n"
        "baseline:\n  - {requirement: POLL-CLIENT-BACKOFF, reason: flat retry}\n"
    )
    read = settings_from("client", str(profile))
    assert read.baseline == (("POLL-CLIENT-BACKOFF", "flat retry"),)
    assert read.declares("if_none_match_form") and not read.declares("first_request")
    profile.write_text("baseline:\n  - {requirement: POLL-CLIENT-BACKOFF}\n")
    try:
        settings_from("client", str(profile))
    except Exception as error:  # a usage error naming the entry
        assert "baseline" in str(error)
    else:
        raise AssertionError("a baseline entry without a reason was accepted")


def test_a_flat_retry_at_the_cadence_misses_the_convention_not_the_spec() -> None:
    events = [poll(0.0, status=200, snapshot_hash="h1"), poll(1.0, status=200)]
    at = 2.0
    for _ in range(4):  # runs of failures retried at the cadence (1 s), each run ended by a 200
        for _ in range(5):
            events.append(poll(at, status=503))
            at += 1.0 + 0.01 * (len(events) % 3)
        events.append(poll(at, status=200))
        at += 1.0
    run = scenario_run(
        "backoff-5xx",
        [instance(f"backoff-5xx#{n}", "backoff-5xx", events, at + 1) for n in range(1, 4)],
    )
    found = judge_backoff(run)
    failed = [f for f in found if f.outcome == FAIL]
    assert failed, found  # the waits do not grow: the convention's growth is what it misses
    assert "convention" in failed[0].title and "spec" not in failed[0].expected
    assert "observed convention" in failed[0].expected
    assert "never went below its own cadence" in failed[0].title
