"""The scenarios stage: hand-written tests, one or more requirement ids each, against a server."""

from __future__ import annotations

from conformance.stages.declaration import Stage

STAGE = Stage(
    name="scenarios",
    help="hand-written scenarios for every server requirement",
    test_package="conformance.stages.scenarios",
    plugins=(
        "xdist.plugin",
        "pytest_base_url.plugin",
        "allure_pytest.plugin",
        "conformance.run.plugin",
    ),
)
