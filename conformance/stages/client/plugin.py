"""The client stage's pytest options and its one session fixture: every chosen scenario run at
once against the scripted server (``runs.run_scenarios``), before the first test judges its own.

Registered by ``conformance.run.plugin`` (``pytest_plugins``), so the options exist wherever the
suite's plugin does: ``pytest --pyargs conformance.stages.client --client-command "..."`` works
as it is, and ``conformance run --stage client`` / ``conformance client`` pass the same options.
Nothing heavy is imported until the fixture runs.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from conformance.errors import UsageError
from conformance.run.state import TARGET_INFO, add_secrets
from conformance.stages.client.runs import run_scenarios
from conformance.stages.client.scenarios import by_name
from conformance.stages.client.settings import settings_from

SCENARIO_PARAMETER = "scenario"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance-client", "RCES conformance: the client stage")
    group.addoption(
        "--client-command",
        metavar="COMMAND",
        default=None,
        help="the command that starts the client under test (split like a shell would, run "
        "without one), configured by the RCES_* variables of docs/client-stage.md "
        "(default: the reference client, python -m refclient)",
    )
    group.addoption(
        "--client-profile",
        metavar="FILE",
        default=None,
        help="a profile whose client: and headers: sections describe the client (no "
        "credentials needed; default: --target-profile's, else the profile defaults)",
    )
    group.addoption(
        "--client-time-scale",
        metavar="SCALE",
        type=float,
        default=None,
        help="multiplies every time of the stage (default: the profile's client.time_scale)",
    )


@pytest.fixture(scope="session")
def client_runs(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Every scenario of the collected tests, run at once; name -> ``runs.ScenarioRun``."""

    config = request.config
    try:
        settings = settings_from(
            config.getoption("client_command"),
            config.getoption("client_profile") or config.getoption("target_profile", None),
            config.getoption("client_time_scale"),
        )
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    wanted = _collected_scenarios(request.session)
    scenarios = [scenario for name, scenario in by_name().items() if name in wanted]
    command = settings.summary()["command"]
    config.stash[TARGET_INFO] = {
        "url": f"client: {command}",
        "fingerprint": hashlib.sha256(command.encode()).hexdigest()[:16],
        "profile": {"client": settings.summary()},
        "baseline": {},
    }
    try:
        runs = run_scenarios(
            settings, scenarios, on_key=lambda key: add_secrets(config, {key: "$RCES_SDK_KEY"})
        )
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    return runs


def _collected_scenarios(session: pytest.Session) -> set[str]:
    names = set()
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and SCENARIO_PARAMETER in callspec.params:
            names.add(str(callspec.params[SCENARIO_PARAMETER]))
    return names
