"""The HTTP client: secrets never shown, curl reproductions, transcripts, 429 as not measurable."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.client import Client
from conformance.errors import ContractViolation, NotMeasurable, UsageError
from conformance.profile import load
from conformance.redaction import Redactor


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


def test_an_unplanned_429_is_not_measurable(client: Client) -> None:
    key = client.profile.credentials.sdk_keys[0].key
    with pytest.raises(NotMeasurable, match="rate limit"):
        for _ in range(client.profile.rate_limit.burst * 3 + 100):
            client.status(key=key, instance_id="cf-unit-drain", pace=False)


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

    from conformance.client import Reply
    from conformance.errors import ContractViolation as _Violation
    from conformance.report.model import Exchange as _Exchange

    secret = "svc_pat_echoed_secret_value"
    exchange = _Exchange("GET", "http://127.0.0.1:1/x", {}, None, 500, {}, "oops $RCES_PAT", 1.0)
    reply = Reply(500, _httpx.Headers(), f"oops {secret}".encode(), exchange, "curl ...")
    with pytest.raises(_Violation) as caught:
        reply.json(("ERR-BODY-JSON",))
    assert secret not in str(caught.value)
    assert "$RCES_PAT" in str(caught.value)


def test_concurrent_gets_answer_in_request_order(client: Client) -> None:
    key = client.profile.credentials.sdk_keys[0].key
    good = ("/sdk/v2/status", {"authorization": key, "x-unused": "1"})
    bad = ("/sdk/v2/status", {"authorization": "svc_pk_not_a_key"})
    answers = client.concurrent_get([good, bad, good, bad, good], streams=2)
    assert [status for status, _ in answers] == [200, 401, 200, 401, 200]
    assert b'"hash"' in answers[0][1]
    assert "5 parallel requests" in client.transcript.render()
    assert key not in client.transcript.render()


def test_concurrent_gets_to_a_closed_port_answer_none(reference_server: Any) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    profile = load(reference_server.profile_path)
    with Client(f"http://127.0.0.1:{port}", profile) as dead:
        assert dead.concurrent_get([("/sdk/v2/status", {})] * 3, streams=2) == [(None, b"")] * 3
