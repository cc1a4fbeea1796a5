"""The client stage's tests: one per scenario, judging what the client under test sent.

The scenarios run together once (the ``client_runs`` fixture); each test then judges its own
recording, reports its requirement ids' outcomes, and leaves its timeline and kept intervals in
the stage details (``conformance.session.wire.publish``) and, when it fails, in the evidence. A
scenario a stop signal cut short is not measurable (its partial timeline is kept).
"""

from __future__ import annotations

import pytest

from conformance.checks.conventions import NOTEBOOK
from conformance.errors import NotMeasurable
from conformance.session import wire
from conformance.session.state import TRANSCRIPT
from conformance.stages.client.dropin import split
from conformance.stages.client.evidence import Timeline, scenario_details
from conformance.stages.client.judging import judge
from conformance.stages.client.plugin import SCENARIO_PARAMETER
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import SCENARIOS
from conformance.verdict.conclusion import conclude, spec_sections

STAGE_NAME = "client"


@pytest.mark.parametrize(
    SCENARIO_PARAMETER,
    [
        pytest.param(
            scenario.name,
            marks=[
                pytest.mark.requirement(*scenario.requirement_ids),
                pytest.mark.xdist_group("client-stage"),  # one process runs them all at once
            ],
            id=scenario.name,
        )
        for scenario in SCENARIOS
    ],
)
def test_client_scenario(
    scenario: str,
    client_runs: dict[str, ScenarioRun],
    request: pytest.FixtureRequest,
) -> None:
    __tracebackhide__ = True
    run = client_runs[scenario]
    request.node.stash[TRANSCRIPT] = Timeline(run)
    wire.publish(
        request.config,
        STAGE_NAME,
        {"settings": run.settings.summary(), "scenarios": {scenario: scenario_details(run)}},
        source=request.node.nodeid,
    )
    if run.stopped:
        raise NotMeasurable(run.stopped)
    findings, differences = split(judge(run))
    for difference in differences:
        NOTEBOOK.note(difference)
    conclude(findings, sections_of=spec_sections)  # a convention's failure cites no section
