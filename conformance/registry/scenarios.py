"""The scenarios stage's declaration: hand-written tests (``conformance.stages.scenarios``), one
or more requirement ids each, against a server."""

from __future__ import annotations

from conformance.registry.declaration import Stage

STAGE = Stage(
    name="scenarios",
    help="hand-written scenarios for every server requirement",
    test_package="conformance.stages.scenarios",
)
