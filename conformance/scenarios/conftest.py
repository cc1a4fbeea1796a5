"""Fixtures every scenario shares: configuration management and snapshot reads on the target."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.management import Configurations
from conformance.checks.sdk import Snapshots


@pytest.fixture
def configurations(client: Any) -> Configurations:
    """Create/patch configurations with the profile's body fields (names carry the run prefix)."""
    return Configurations(client)


@pytest.fixture
def snapshots(client: Any) -> Snapshots:
    """Status/bootstrap reads with the profile's keys and header names."""
    return Snapshots(client)
