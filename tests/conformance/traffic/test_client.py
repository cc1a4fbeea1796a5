"""The HTTP client: secrets never shown, curl reproductions, transcripts, and what the target did
(no answer, a reset, a 5xx, an unprovoked 429) judged, with only the suite's own excess excused."""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.errors import ContractViolation, NoAnswer, NotMeasurable, UsageError
from conformance.profile import Profile, load, parse
from conformance.redaction.placeholders import Redactor
from conformance.traffic.client import Client
from tests.support.hostile_servers import PROFILE, Hostile, answer, reset


@pytest.fixture
def client(reference_server: Any) -> Any:
    profile = load(reference_server.profile_path)
    with Client(reference_server.base_url, profile, run_prefix="cf-unit") as http:
        yield http


def test_secrets_never_reach_the_transcript_or_curl(client: Client) -> None:
    reply = client.status(key=client.profile.credentials.sdk_keys[0].key)
    client.management("POST", "/configuration", json_body={"name": client.name("redact")})
    shown = client.transcript.render() + reply.curl
    for secret in client.profile.secrets():
        assert secret not in shown
    assert "$RCES_SDK_KEY_1" in reply.curl
    assert "Bearer $RCES_PAT" in client.transcript.render()


def test_curl_line_reproduces_the_request(client: Client) -> None:
    reply = client.management(
        "POST", "/configuration", json_body={"name": client.name("curl"), "x": "it's"}
    )
    assert reply.curl.startswith("curl -i -X POST ")
    assert "/application/1/v2/configuration" in reply.curl
    assert "-H 'environment_id: 1'" in reply.curl
    assert "--data-raw" in reply.curl and "it'\"'\"'s" in reply.curl


def test_unknown_values_in_credential_headers_are_masked() -> None:
    redactor = Redactor({"svc_pk_known": "$KEY"})
    assert redactor.header("authorization", "svc_pk_known") == "$KEY"
    assert redactor.header("authorization", "Bearer svc_pat_unknown") == "Bearer <redacted>"
    assert redactor.header("authorization", "raw") == "<redacted>"
    assert redactor.header("environment", "production") == "production"


@pytest.mark.parametrize(
    "shown",
    [
        'svc_pat_a/b+c&d<e>"f',  # raw
        "svc_pat_a%2Fb%2Bc%26d%3Ce%3E%22f",  # in a URL
        "svc_pat_a/b+c&amp;d&lt;e&gt;&quot;f",  # in HTML
        'svc_pat_a/b+c&d<e>\\"f',  # in a JSON string
    ],
)
def test_escaped_spellings_of_a_secret_are_redacted_too(shown: str) -> None:
    redactor = Redactor({'svc_pat_a/b+c&d<e>"f': "$RCES_PAT"})
    assert redactor.text(f"before {shown} after") == "before $RCES_PAT after"


def test_a_429_after_the_suites_own_excess_is_not_measurable_with_the_figure(
    client: Client,
) -> None:
    """Unpaced, the suite drains the bucket itself: only that excuses an unasked-for 429."""
    key = client.profile.credentials.sdk_keys[0].key
    with pytest.raises(NotMeasurable, match="rate limit") as caught:
        for _ in range(client.profile.rate_limit.burst * 3 + 100):
            client.status(key=key, instance_id="cf-unit-drain", pace=False)
    assert "the suite sent" in caught.value.reason
    assert "burst 60, refill 30/s" in caught.value.reason


# ------------------------------------------------------------------ what the target did


def _key(profile: Profile) -> str:
    return profile.credentials.sdk_keys[0].key


def test_no_answer_after_one_retry_is_a_violation(closed_port_url: str) -> None:
    profile = parse(PROFILE)
    with Client(closed_port_url, profile) as dead:
        with pytest.raises(NoAnswer) as caught:
            dead.status(key=_key(profile), pace=False)
        assert len(dead.transcript.exchanges) == 2  # the request and its one retry
    assert caught.value.requirement_ids == ()  # every id of the test under test
    assert caught.value.received.count("refused") == 2
    assert "$RCES_SDK_KEY_1" in (caught.value.curl or "")
    assert _key(profile) not in str(caught.value)


def test_a_reset_is_retried_once_and_then_judged() -> None:
    profile = parse(PROFILE)
    with Hostile([reset, answer(200, b'{"hash": "h"}')]).running() as server:
        with Client(server.base_url, profile) as client:
            assert client.status(key=_key(profile), pace=False).status == 200
        assert server.requests == 2
    with (
        Hostile([reset]).running() as server,
        Client(server.base_url, profile) as client,
        pytest.raises(NoAnswer, match=r"reset|closed"),
    ):
        client.status(key=_key(profile), pace=False)


def test_a_post_whose_answer_was_lost_is_not_resent_but_judged() -> None:
    """A POST may have taken effect: a second one would be judged against the first's effect."""
    profile = parse(PROFILE)
    with (
        Hostile([reset, answer(201, b"{}")]).running() as server,
        Client(server.base_url, profile) as client,
    ):
        with pytest.raises(NoAnswer, match=r"reset|closed") as caught:
            client.request("POST", "/application/1/v2/configurations", json_body={})
        assert server.requests == 1
        assert "not resent: POST is not idempotent" in caught.value.received


def test_a_post_that_never_reached_the_target_is_resent(closed_port_url: str) -> None:
    profile = parse(PROFILE)
    with Client(closed_port_url, profile) as dead:
        with pytest.raises(NoAnswer):
            dead.request("POST", "/application/1/v2/configurations", json_body={})
        assert len(dead.transcript.exchanges) == 2  # connection refused: nothing was sent


def test_a_5xx_is_a_violation_unless_the_test_judges_it_itself() -> None:
    profile = parse(PROFILE)
    down = answer(503, b'{"errorCode": "DOWN"}')
    with Hostile([down]).running() as server, Client(server.base_url, profile) as client:
        with pytest.raises(ContractViolation, match="server error") as caught:
            client.management("POST", "/configuration", json_body={"name": "x"})
        assert "HTTP 503" in caught.value.received
        assert caught.value.requirement_ids == ()
        reply = client.status(key=_key(profile), pace=False, allow_server_error=True)
        assert reply.status == 503


def test_an_unprovoked_429_is_a_violation_with_the_figure() -> None:
    profile = parse(PROFILE)
    limited = answer(429, b'{"errorCode": "RATE_LIMITED"}', [("Retry-After", "1")])
    with Hostile([limited]).running() as server, Client(server.base_url, profile) as client:
        with pytest.raises(ContractViolation, match="429") as caught:
            client.status(key=_key(profile), instance_id="cf-unit-fresh")
        assert "the suite sent 1 request(s)" in caught.value.received
        assert "would have held 60.0 token(s)" in caught.value.received
        with pytest.raises(ContractViolation, match="management_rate_limit"):
            client.management("GET", "/experiments")


def test_a_provoked_429_is_answered() -> None:
    profile = parse(PROFILE)
    limited = answer(429, b"{}", [("Retry-After", "1")])
    with Hostile([limited]).running() as server, Client(server.base_url, profile) as client:
        reply = client.status(key=_key(profile), allow_rate_limit=True, pace=False)
        assert reply.status == 429
        assert reply.headers["retry-after"] == "1"


def test_management_calls_are_paced_under_a_declared_limit() -> None:
    """burst 2, refill 4/s: the suite allows itself half (1 at once, 2/s), so 4 calls take 1.5 s."""
    profile = parse(PROFILE + "management_rate_limit: {burst: 2, refill_per_second: 4}\n")
    with Hostile([answer(200)]).running() as server, Client(server.base_url, profile) as client:
        started = time.monotonic()
        for _ in range(4):
            client.management("GET", "/experiments")
        assert time.monotonic() - started >= 1.4


def test_pacing_keeps_a_bucket_under_the_limit(client: Client) -> None:
    key = client.profile.credentials.sdk_keys[0].key
    for _ in range(client.profile.rate_limit.burst):
        assert client.status(key=key, instance_id="cf-unit-paced").status == 200


def test_violation_reads_rule_expected_received_reproduction() -> None:
    text = str(ContractViolation(["SDK-X"], "broke", "HTTP 304", "HTTP 200", "curl x", ["4.3"]))
    lines = text.splitlines()
    assert lines[0].startswith("Rule broken: SDK-X (spec 4.3)")
    assert lines[1] == "Expected: HTTP 304"
    assert lines[2] == "Received: HTTP 200"
    assert lines[3] == "Reproduce: curl x"


def test_usage_error_says_what_to_do() -> None:
    assert "What to do: start it" in str(UsageError("down", "start it"))


def test_a_non_json_body_in_a_violation_is_redacted() -> None:
    """The failure text quotes the redacted exchange, never the raw body of the reply."""
    import httpx as _httpx

    from conformance.errors import ContractViolation as _Violation
    from conformance.traffic.transcript import Reply
    from conformance.verdict.evidence import Exchange as _Exchange

    secret = "svc_pat_echoed_secret_value"
    exchange = _Exchange("GET", "http://127.0.0.1:1/x", {}, None, 500, {}, "oops $RCES_PAT", 1.0)
    reply = Reply(500, _httpx.Headers(), f"oops {secret}".encode(), exchange, "curl ...")
    with pytest.raises(_Violation) as caught:
        reply.json(("ERR-BODY-JSON",))
    assert secret not in str(caught.value)
    assert "$RCES_PAT" in str(caught.value)
