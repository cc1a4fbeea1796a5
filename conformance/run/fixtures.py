"""The fixtures every conformance test can ask for: the target, its profile, a client, clean-up.

Registered by ``conformance.run.plugin`` (``pytest_plugins``). The target is the run's
(``conformance.run.handover``); nothing is sent to it until a test asks for a ``client``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

import httpx
import pytest

from conformance.profile import Profile
from conformance.profile import reads as profile_reads
from conformance.run import handover
from conformance.session.cleanup import Cleanup
from conformance.session.state import DEADLINE, RUN_ID, TRANSCRIPT
from conformance.target.resolution import Target
from conformance.traffic.client import Client, new_http_client
from conformance.traffic.pacing import Pacer


@pytest.fixture(scope="session")
def run_prefix(pytestconfig: pytest.Config) -> str:
    """The per-run prefix of every name the suite creates on a target (``cf-<runid>``)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw")
    return f"cf-{pytestconfig.stash[RUN_ID]}-{worker}"


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Iterator[Target]:
    """The target under test, as the run was handed it (``conformance.run.handover``)."""

    handed, owned = handover.on_demand(pytestconfig)
    used = handed
    if profile_reads.active_log() is not None:  # RCES_RECORD_PROFILE_KEYS: note each key read
        used = dataclasses.replace(handed, profile=profile_reads.recording_view(handed.profile))
    try:
        yield used
    finally:
        if owned:
            handed.stop()


@pytest.fixture(scope="session")
def profile(target: Target) -> Profile:
    """The target's loaded ``conformance.profile.Profile``."""
    return target.profile


@pytest.fixture(scope="session")
def pacer(target: Target) -> Pacer:
    return Pacer(workers=int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


@pytest.fixture(scope="session")
def cleanup(http_session: httpx.Client, pytestconfig: pytest.Config) -> Iterator[Cleanup]:
    """Register end-of-session clean-up of what the suite created (``cleanup.add(desc, fn)``)."""
    registry = Cleanup(deadline=pytestconfig.stash.get(DEADLINE, None))
    try:
        yield registry
    finally:
        registry.run()


@pytest.fixture(scope="session")
def http_session() -> Iterator[httpx.Client]:
    """One keep-alive ``httpx.Client`` shared by every test's ``client``."""

    with new_http_client() as http:
        yield http


@pytest.fixture
def client(
    request: pytest.FixtureRequest,
    target: Target,
    pacer: Pacer,
    run_prefix: str,
    http_session: httpx.Client,
) -> Iterator[Client]:
    """A traffic ``Client`` for this test; its transcript goes into failure reports."""

    with Client(
        target.base_url,
        target.profile,
        run_prefix=run_prefix,
        pacer=pacer,
        http=http_session,
    ) as http:
        request.node.stash[TRANSCRIPT] = http.transcript
        yield http
