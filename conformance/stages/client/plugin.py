"""The client stage's pytest plugin: its one session fixture, every chosen scenario run at once
against the scripted server (``runs.run_scenarios``), before the first test judges its own.

Registered by ``conformance.run.plugin`` for a run that collects the client stage, whichever way
pytest was started (``conformance run --stage client``, ``conformance client``, or
``pytest --pyargs conformance.stages.client --client-command "..."``); its options are declared
with the stage (``conformance.registry.client``). Nothing heavy is imported until the fixture runs.
"""

from __future__ import annotations

import hashlib

import pytest

from conformance.errors import UsageError
from conformance.session.state import TARGET_INFO, add_secrets
from conformance.stages.client.runs import ScenarioRun, run_scenarios
from conformance.stages.client.scenarios import by_name
from conformance.stages.client.settings import settings_from

SCENARIO_PARAMETER = "scenario"


@pytest.fixture(scope="session")
def client_runs(request: pytest.FixtureRequest) -> dict[str, ScenarioRun]:
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
    described: dict[str, object] = {  # what the report says of the client
        "url": f"client: {command}",
        "fingerprint": hashlib.sha256(command.encode()).hexdigest()[:16],
        "profile": {"client": settings.summary()},
        "baseline": dict(settings.baseline),  # known failures, as in server runs
    }
    config.stash[TARGET_INFO] = described
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
