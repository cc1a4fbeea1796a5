"""Fixtures every scenario shares: configuration management, snapshot reads, experiments."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.drivers.experiments import Experiments, experiments_for
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots
from conformance.session.cleanup import Cleanup
from conformance.traffic.client import Client


@pytest.fixture
def configurations(client: Client) -> Configurations:
    """Create/patch configurations with the profile's body fields (names carry the run prefix)."""
    return Configurations(client)


@pytest.fixture
def snapshots(client: Client) -> Snapshots:
    """Status/bootstrap reads with the profile's keys and header names."""
    return Snapshots(client)


@pytest.fixture
def experiments(
    request: pytest.FixtureRequest, client: Client, cleanup: Cleanup
) -> Iterator[Experiments]:
    """The experiment driver; skips as unsupported without the capability, terminates at the end."""
    yield from experiments_for(request, client, cleanup)
