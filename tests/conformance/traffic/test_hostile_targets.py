"""Hostile targets over real sockets: the suite ends in bounded time, with a fail or a usage error.

A target that drips a body that never ends, sends a huge one, or never answers must not hold a
run: each answer has a size cap and a total deadline (``responses`` in the profile, 64 KiB and
1.5 s here), a missing answer is retried once, and at pre-flight the same is a usage error.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack

import httpx
import pytest

from conformance.errors import ContractViolation, NoAnswer, UnboundedAnswer, UsageError
from conformance.profile import Profile, parse
from conformance.target import resolution as targets
from conformance.target.resolution import Target
from conformance.traffic.client import Client
from conformance.verdict.classification import classify
from conformance.verdict.outcome import Outcome
from tests.support.hostile_servers import (
    PROFILE,
    Behaviour,
    Hostile,
    answer,
    drip,
    header_drip,
    huge,
    silent,
)

DEADLINE = 1.5  # responses.max_seconds of PROFILE
SLACK = 1.5  # thread start-up and a loaded machine


@pytest.fixture
def profile() -> Profile:
    return parse(PROFILE)


Serve = Callable[..., Hostile]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start a hostile server with the given behaviours; every one stops when the test ends."""
    with ExitStack() as stack:

        def start(*behaviours: Behaviour) -> Hostile:
            return stack.enter_context(Hostile(behaviours).running())

        yield start


def _status(client: Client) -> float:
    started = time.monotonic()
    try:
        client.status(key="svc_pk_hostile_secret", environment="development", pace=False)
    finally:
        elapsed = time.monotonic() - started
    return elapsed


def test_a_status_poll_that_drips_forever_fails_at_the_deadline(
    serve: Serve, profile: Profile
) -> None:
    server = serve(drip(every=0.2, size=1024))
    with Client(server.base_url, profile) as client:
        started = time.monotonic()
        with pytest.raises(UnboundedAnswer) as caught:
            _status(client)
        elapsed = time.monotonic() - started
    assert DEADLINE <= elapsed < DEADLINE + SLACK
    assert "still arriving" in caught.value.received
    assert "HTTP 200" in caught.value.received
    assert "svc_pk_hostile_secret" not in str(caught.value)
    assert "$RCES_SDK_KEY_1" in (caught.value.curl or "")
    record = classify("t", "scenarios", ["SDK-A", "SDK-B"], caught.value, failed=True)
    assert set(record.outcomes.values()) == {Outcome.FAIL}  # no ids named: the whole test
    assert record.evidence is not None and "unbounded" in record.evidence.title


def test_headers_that_never_end_fail_at_the_deadline(serve: Serve, profile: Profile) -> None:
    """Each header line resets a per-read timeout; only a total deadline ends this."""
    server = serve(header_drip(every=0.2))
    with Client(server.base_url, profile) as client:
        started = time.monotonic()
        with pytest.raises(UnboundedAnswer) as caught:
            _status(client)
        elapsed = time.monotonic() - started
    assert DEADLINE <= elapsed < DEADLINE + SLACK
    assert "no status line" in caught.value.received
    assert "headers had not arrived" in caught.value.received


def test_a_huge_body_fails_at_the_size_cap(serve: Serve, profile: Profile) -> None:
    server = serve(huge())
    with Client(server.base_url, profile) as client:
        started = time.monotonic()
        with pytest.raises(UnboundedAnswer) as caught:
            _status(client)
        elapsed = time.monotonic() - started
    assert elapsed < DEADLINE
    assert "size cap" in caught.value.received


def test_a_target_that_never_answers_fails_after_one_retry(serve: Serve, profile: Profile) -> None:
    server = serve(silent)
    with Client(server.base_url, profile, timeout=httpx.Timeout(0.5)) as client:
        started = time.monotonic()
        with pytest.raises(NoAnswer) as caught:
            _status(client)
        elapsed = time.monotonic() - started
        assert len(client.transcript.exchanges) == 2  # the request and its one retry
    assert server.requests == 2
    assert elapsed < 2 * 0.5 + SLACK
    assert caught.value.received.count("read timeout") == 2
    assert isinstance(caught.value, ContractViolation)


def test_preflight_of_a_dripping_target_is_a_usage_error(serve: Serve, profile: Profile) -> None:
    server = serve(drip())
    started = time.monotonic()
    with pytest.raises(UsageError) as caught:
        targets.preflight(Target(server.base_url, profile, None))
    assert time.monotonic() - started < DEADLINE + SLACK
    assert "never ended" in caught.value.problem
    assert "still arriving" in caught.value.problem
    assert "responses.max_seconds" in caught.value.what_to_do


def test_preflight_of_a_huge_answer_is_a_usage_error(serve: Serve, profile: Profile) -> None:
    server = serve(huge())
    with pytest.raises(UsageError, match="size cap"):
        targets.preflight(Target(server.base_url, profile, None))


def test_preflight_of_a_silent_target_is_a_usage_error(
    serve: Serve, profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(targets, "PREFLIGHT_TIMEOUT", httpx.Timeout(0.5))
    server = serve(silent)
    started = time.monotonic()
    with pytest.raises(UsageError, match="cannot reach the target") as caught:
        targets.preflight(Target(server.base_url, profile, None))
    assert time.monotonic() - started < 2 * 0.5 + SLACK
    assert "read timeout" in caught.value.problem


def test_preflight_of_a_well_behaved_target_passes(serve: Serve, profile: Profile) -> None:
    server = serve(answer(200, b'{"hash": "h"}', [("Server", "hostile-test"), ("ETag", '"h"')]))
    found = Target(server.base_url, profile, None)
    targets.preflight(found)
    assert found.server_header == "hostile-test"
