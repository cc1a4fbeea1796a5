"""refclient.core, driven by hand with scripted replies: no sockets, no clock, no randomness."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from refclient.config import Config
from refclient.core import Outcome, PollCore, Refetch, Reply
from refclient.errors import PermanentError
from refclient.version import SDK_VERSION
from tests.refclient.bodies import KEY, bootstrap, entry, error, not_modified, ok, status


def draws(*values: float) -> Iterator[float]:
    while True:
        yield from values


def core_of(u: float = 0.0, **overrides: Any) -> PollCore:
    source = draws(u)
    settings: dict[str, Any] = {"instance_id": "server-7", "random": lambda: next(source)}
    settings.update(overrides)
    return PollCore(Config("http://rces.test", KEY, **settings))


A1, B1 = entry(1, "a1"), entry(2, "b1")
DOCS = {1: {"lives": 3}, 2: {"shop": "open"}}


def primed(core: PollCore) -> Outcome:
    """First poll: 200 with two configurations, refetched through bootstrap."""
    core.poll_request()
    step = core.on_poll_reply(ok(status("s1", A1, B1)))
    assert isinstance(step, Refetch)
    outcome = core.on_refetch_replies([ok(bootstrap("s1", (A1, DOCS[1]), (B1, DOCS[2])))])
    assert core.snapshot.hash == "s1"
    return outcome


# --- what is sent -------------------------------------------------------------------------


def test_first_poll_sends_no_hash_but_identity_headers() -> None:
    request = core_of().poll_request()
    assert request.path == "/sdk/v2/status"
    assert dict(request.headers) == {
        "authorization": KEY,
        "environment": "development",
        "server-id": "server-7",
        "sdkversion": SDK_VERSION,
    }
    assert SDK_VERSION.startswith("refclient/")
    assert dict(request.params) == {}


def test_later_polls_send_the_kept_hash_as_a_quoted_strong_etag() -> None:
    core = core_of()
    primed(core)
    request = core.poll_request()
    assert request.headers["if-none-match"] == '"s1"'
    assert dict(request.params) == {}


def test_query_transport_sends_the_bare_hash_and_no_header() -> None:
    core = core_of(hash_transport="query")
    primed(core)
    request = core.poll_request()
    assert dict(request.params) == {"hash": "s1"}
    assert "if-none-match" not in request.headers


def test_header_names_environment_and_project_id_are_configurable() -> None:
    from refclient.config import Headers

    names = Headers(authorization="x-key", environment="x-env", instance_id="x-server")
    request = core_of(headers=names, environment="production", project_id=42).poll_request()
    assert request.headers["x-key"] == KEY
    assert request.headers["x-env"] == "production"
    assert request.headers["x-server"] == "server-7"
    assert request.headers["project-id"] == "42"


# --- what replies mean ----------------------------------------------------------------------


def test_first_200_refetches_everything_once_and_reports_it() -> None:
    core = core_of()
    core.poll_request()
    step = core.on_poll_reply(ok(status("s1", A1, B1)))
    assert isinstance(step, Refetch)
    assert [r.path for r in step.requests] == ["/sdk/v2/bootstrap"]
    assert "if-none-match" not in step.requests[0].headers
    assert core.snapshot.hash is None  # not kept before the refetch succeeded
    outcome = core.on_refetch_replies([ok(bootstrap("s1", (A1, DOCS[1]), (B1, DOCS[2])))])
    assert outcome.result == "changed"
    assert outcome.changes is not None
    assert [c.id for c in outcome.changes.updated] == [1, 2]
    assert core.snapshot.document("config-1") == {"lives": 3}
    assert core.snapshot.primary is not None and core.snapshot.primary.id == 1


def test_304_changes_nothing() -> None:
    core = core_of()
    primed(core)
    before = core.snapshot
    core.poll_request()
    outcome = core.on_poll_reply(not_modified("s1"))
    assert isinstance(outcome, Outcome)
    assert outcome.result == "not-modified" and outcome.changes is None
    assert core.snapshot is before


def test_200_with_the_kept_hash_is_read_as_not_modified() -> None:
    core = core_of()
    primed(core)
    core.poll_request()
    outcome = core.on_poll_reply(ok(status("s1", A1, B1)))
    assert isinstance(outcome, Outcome)
    assert outcome.result == "unchanged" and outcome.refetched == ()


def test_a_bootstrap_newer_than_the_status_is_kept_and_not_refetched_again() -> None:
    core = core_of()
    primed(core)
    core.poll_request()
    step = core.on_poll_reply(ok(status("s2", A1, entry(2, "b2"))))
    assert isinstance(step, Refetch)
    newer = entry(2, "b3")  # changed again between the status and the bootstrap
    core.on_refetch_replies([ok(bootstrap("s3", (A1, DOCS[1]), (newer, "third")))])
    assert core.snapshot.hash == "s2"  # the hash of the poll, so the next one asks again
    assert core.snapshot.configurations[2].hash == "b3"
    core.poll_request()
    repeated = core.on_poll_reply(ok(status("s2", A1, entry(2, "b2"))))
    assert isinstance(repeated, Outcome) and repeated.result == "unchanged"
    assert core.snapshot.configurations[2].document == "third"  # never rolled back
    core.poll_request()
    caught_up = core.on_poll_reply(ok(status("s3", A1, newer)))
    assert isinstance(caught_up, Outcome) and caught_up.refetched == ()
    assert core.snapshot.hash == "s3"


def test_only_the_changed_configuration_is_taken_from_the_refetch() -> None:
    core = core_of()
    primed(core)
    core.poll_request()
    moved = entry(2, "b2")
    step = core.on_poll_reply(ok(status("s2", A1, moved)))
    assert isinstance(step, Refetch) and len(step.requests) == 1
    # the bootstrap carries every document; configuration 1's must not be taken again
    outcome = core.on_refetch_replies(
        [ok(bootstrap("s2", (A1, {"lives": 999}), (moved, {"shop": "closed"})))]
    )
    assert outcome.changes is not None
    assert [c.id for c in outcome.changes.updated] == [2]
    assert core.snapshot.configurations[1].document == {"lives": 3}
    assert core.snapshot.configurations[2].document == {"shop": "closed"}
    assert core.snapshot.hash == "s2"


def test_per_configuration_refetch_asks_for_exactly_the_changed_ones() -> None:
    core = core_of(refetch="per-configuration", configuration_path="/cfg/{id}")
    core.poll_request()
    step = core.on_poll_reply(ok(status("s1", A1, B1)))
    assert isinstance(step, Refetch)
    assert [r.path for r in step.requests] == ["/cfg/1", "/cfg/2"]
    replies = [ok({"hash": "x", "configuration": DOCS[i]}) for i in (1, 2)]
    core.on_refetch_replies(replies)
    core.poll_request()
    step = core.on_poll_reply(ok(status("s2", entry(1, "a2"), B1)))
    assert isinstance(step, Refetch)
    assert [r.path for r in step.requests] == ["/cfg/1"]
    outcome = core.on_refetch_replies([ok({"hash": "y", "configuration": {"lives": 5}})])
    assert outcome.changes is not None and [c.id for c in outcome.changes.updated] == [1]
    assert core.snapshot.configurations[1].hash == "a2"  # compared against status hashes


def test_alias_change_is_refetched_and_name_change_is_not() -> None:
    core = core_of()
    primed(core)
    core.poll_request()
    renamed = {**A1, "name": "Lives"}
    step = core.on_poll_reply(ok(status("s2", renamed, B1)))
    assert isinstance(step, Outcome) and step.result == "unchanged"
    assert core.snapshot.configurations[1].name == "Lives"
    core.poll_request()
    realiased = {**renamed, "alias": "lives"}
    step = core.on_poll_reply(ok(status("s3", realiased, B1)))
    assert isinstance(step, Refetch)


def test_removed_configuration_is_reported_without_a_refetch() -> None:
    core = core_of()
    primed(core)
    core.poll_request()
    outcome = core.on_poll_reply(ok(status("s2", A1)))
    assert isinstance(outcome, Outcome)
    assert outcome.changes is not None
    assert [c.id for c in outcome.changes.removed] == [2] and outcome.changes.updated == ()
    assert list(core.snapshot.configurations) == [1]


@pytest.mark.parametrize(
    "failure",
    [
        error(503),
        error(429, **{"retry-after": "1"}),
        ok(bootstrap("s2", (A1, DOCS[1]))),  # lacks the changed configuration's document
        Reply(200, {}, b"not json"),
    ],
    ids=["503", "429", "missing-document", "bad-json"],
)
def test_new_hash_is_kept_only_after_the_refetch_succeeded(failure: Reply) -> None:
    core = core_of()
    primed(core)
    moved = entry(2, "b2")
    core.poll_request()
    assert isinstance(core.on_poll_reply(ok(status("s2", A1, moved))), Refetch)
    outcome = core.on_refetch_replies([failure])
    assert outcome.result == "failed" and outcome.failures == 1
    assert core.snapshot.hash == "s1"
    assert core.snapshot.configurations[2].hash == "b1"
    # the next poll still sends the old hash, sees the change again, and refetches again
    assert core.poll_request().headers["if-none-match"] == '"s1"'
    assert isinstance(core.on_poll_reply(ok(status("s2", A1, moved))), Refetch)
    outcome = core.on_refetch_replies([ok(bootstrap("s2", (A1, DOCS[1]), (moved, "new")))])
    assert outcome.result == "changed" and core.snapshot.hash == "s2"
    assert core.snapshot.configurations[2].document == "new"


def test_transport_error_during_refetch_keeps_the_old_hash() -> None:
    core = core_of()
    primed(core)
    core.poll_request()
    assert isinstance(core.on_poll_reply(ok(status("s2", A1, entry(2, "b2")))), Refetch)
    outcome = core.on_transport_error(ConnectionResetError("reset by peer"))
    assert outcome.result == "failed" and outcome.status is None
    assert "reset by peer" in outcome.detail
    assert core.snapshot.hash == "s1"


# --- waits ----------------------------------------------------------------------------------


def test_own_cadence_is_spread_above_by_default() -> None:
    assert core_of(u=0.0).success_delay() == 30.0
    assert core_of(u=0.99).success_delay() == pytest.approx(30 * (1 + 0.2 * 0.99))


def test_hint_sets_the_minimum_stays_over_304_and_goes_with_a_200_without_it() -> None:
    core = core_of(u=0.5)
    primed(core)
    core.poll_request()
    hinted = core.on_poll_reply(
        ok(status("s1", A1, B1, polling={"intervalSeconds": 120, "jitterRatio": 0.5}))
    )
    assert isinstance(hinted, Outcome)
    assert hinted.delay == pytest.approx(120 * (1 + 0.5 * 0.5))
    core.poll_request()
    held = core.on_poll_reply(not_modified("s1"))
    assert isinstance(held, Outcome) and held.hint is not None
    assert held.delay == pytest.approx(150.0)
    core.poll_request()
    back = core.on_poll_reply(ok(status("s1", A1, B1)))
    assert isinstance(back, Outcome) and back.hint is None
    assert back.delay == pytest.approx(30 * 1.1)


@pytest.mark.parametrize("u", [0.0, 0.25, 0.5, 0.75, 0.999])
def test_above_reading_never_polls_faster_than_the_hint(u: float) -> None:
    core = core_of(u=u)
    core.poll_request()
    outcome = core.on_poll_reply(
        ok(status("s1", polling={"intervalSeconds": 60, "jitterRatio": 0.3}))
    )
    assert isinstance(outcome, Outcome)
    assert 60.0 <= outcome.delay < 60.0 * 1.3


def test_symmetric_reading_spreads_around_the_hint() -> None:
    delays = []
    for u in (0.0, 0.5, 0.999):
        core = core_of(u=u, jitter_reading="symmetric")
        core.poll_request()
        outcome = core.on_poll_reply(
            ok(status("s1", polling={"intervalSeconds": 60, "jitterRatio": 0.2}))
        )
        assert isinstance(outcome, Outcome)
        delays.append(outcome.delay)
    assert delays[0] == pytest.approx(48.0)
    assert delays[1] == pytest.approx(60.0)
    assert delays[2] == pytest.approx(60.0 * (1 - 0.2 + 0.4 * 0.999))


def test_hint_below_own_cadence_never_speeds_the_client_up() -> None:
    core = core_of(u=0.0)
    core.poll_request()
    outcome = core.on_poll_reply(ok(status("s1", polling={"intervalSeconds": 1, "jitterRatio": 0})))
    assert isinstance(outcome, Outcome) and outcome.delay == 30.0


def test_hint_ratio_is_clamped_and_defaults_to_observed_value() -> None:
    core = core_of(u=0.5)
    core.poll_request()
    outcome = core.on_poll_reply(
        ok(status("s1", polling={"intervalSeconds": 40, "jitterRatio": 7}))
    )
    assert isinstance(outcome, Outcome) and outcome.delay == pytest.approx(40 * 1.5)
    core.poll_request()
    outcome = core.on_poll_reply(ok(status("s2", polling={"intervalSeconds": 40})))
    assert isinstance(outcome, Outcome) and outcome.delay == pytest.approx(40 * 1.1)


def test_symmetric_reading_never_goes_below_the_floor() -> None:
    core = core_of(u=0.0, jitter_reading="symmetric", cadence=5.0, cadence_jitter=0.5)
    assert core.success_delay() == 5.0


def test_server_errors_back_off_doubling_up_to_the_cap_and_reset_after_success() -> None:
    core = core_of(u=0.0)
    delays = []
    for _ in range(10):
        core.poll_request()
        outcome = core.on_poll_reply(error(503))
        assert isinstance(outcome, Outcome)
        delays.append(outcome.delay)
    assert delays[:6] == [5, 10, 20, 40, 80, 160]
    assert all(d <= 300 for d in delays) and delays[-1] == pytest.approx(250.0)
    core.poll_request()
    recovered = core.on_poll_reply(not_modified())
    assert isinstance(recovered, Outcome) and recovered.failures == 0
    core.poll_request()
    again = core.on_poll_reply(error(500))
    assert isinstance(again, Outcome) and again.delay == 5.0


@pytest.mark.parametrize("status_code", [408, 500, 502, 503, 504])
def test_retryable_statuses_back_off(status_code: int) -> None:
    core = core_of(u=0.5)
    core.poll_request()
    outcome = core.on_poll_reply(error(status_code))
    assert isinstance(outcome, Outcome) and outcome.result == "failed"
    assert outcome.delay == pytest.approx(5 * 1.1)


def test_429_waits_at_least_retry_after_in_seconds() -> None:
    core = core_of(u=0.0)
    core.poll_request()
    outcome = core.on_poll_reply(error(429, "RATE_LIMITED", **{"retry-after": "42"}))
    assert isinstance(outcome, Outcome) and outcome.delay == 42.0
    core.poll_request()
    short = core.on_poll_reply(error(429, **{"retry-after": "1"}))
    assert isinstance(short, Outcome) and short.delay == 10.0  # backoff is longer: never sooner


def test_429_waits_at_least_retry_after_as_http_date() -> None:
    core = core_of(u=0.0, clock=lambda: 1_700_000_000.0)
    core.poll_request()
    when = "Tue, 14 Nov 2023 22:15:20 GMT"  # 1_700_000_120
    outcome = core.on_poll_reply(error(429, **{"retry-after": when}))
    assert isinstance(outcome, Outcome) and outcome.delay == pytest.approx(120.0)


def test_429_without_retry_after_backs_off() -> None:
    core = core_of(u=0.0)
    core.poll_request()
    outcome = core.on_poll_reply(error(429))
    assert isinstance(outcome, Outcome) and outcome.delay == 5.0


def test_failures_never_retry_sooner_than_a_held_hint() -> None:
    core = core_of(u=0.0)
    core.poll_request()
    core.on_poll_reply(ok(status("s1", polling={"intervalSeconds": 90, "jitterRatio": 0.1})))
    core.poll_request()
    outcome = core.on_poll_reply(error(503))
    assert isinstance(outcome, Outcome) and outcome.delay == 90.0


def test_time_scale_scales_own_delays_but_not_the_servers() -> None:
    core = core_of(u=0.0, time_scale=0.01)
    assert core.success_delay() == pytest.approx(0.3)
    core.poll_request()
    failed = core.on_poll_reply(error(503))
    assert isinstance(failed, Outcome) and failed.delay == pytest.approx(0.05)
    core.poll_request()
    throttled = core.on_poll_reply(error(429, **{"retry-after": "2"}))
    assert isinstance(throttled, Outcome) and throttled.delay == 2.0
    core.poll_request()
    hinted = core.on_poll_reply(ok(status("s1", polling={"intervalSeconds": 0.5})))
    assert isinstance(hinted, Outcome) and hinted.delay == pytest.approx(0.5)


# --- permanent errors and the key -------------------------------------------------------------


@pytest.mark.parametrize("status_code", [400, 401, 403, 404, 410])
def test_other_4xx_is_permanent_with_a_clear_message_and_no_key(status_code: int) -> None:
    core = core_of()
    core.poll_request()
    reply = error(status_code, "INVALID_KEY", f"unknown key {KEY}")
    with pytest.raises(PermanentError) as raised:
        core.on_poll_reply(reply)
    message = str(raised.value)
    assert f"status answered {status_code} INVALID_KEY" in message
    assert "polling stopped" in message
    assert KEY not in message and "<redacted sdk key>" in message
    assert raised.value.status == status_code and raised.value.code == "INVALID_KEY"


def test_permanent_error_during_refetch_names_the_refetch() -> None:
    core = core_of()
    core.poll_request()
    core.on_poll_reply(ok(status("s1", A1)))
    with pytest.raises(PermanentError, match="bootstrap answered 403"):
        core.on_refetch_replies([error(403, "FORBIDDEN")])


def test_key_never_appears_in_outcomes_or_config_repr() -> None:
    core = core_of()
    core.poll_request()
    failed = core.on_transport_error(OSError(f"could not send {KEY}"))
    assert KEY not in failed.describe() and KEY not in repr(failed)
    assert KEY not in repr(core.config)
    primed(core)
    core.poll_request()
    outcome = core.on_poll_reply(not_modified("s1"))
    assert isinstance(outcome, Outcome)
    assert KEY not in outcome.describe()
    assert json.dumps(outcome.describe())
