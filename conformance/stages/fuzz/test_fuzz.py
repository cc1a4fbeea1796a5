"""The fuzz stage: every contract operation fuzzed against the target, statelessly and statefully.

Three test families, one item per operation where it applies:

- ``test_fuzz[<METHOD> <path>]``: generated cases (valid and invalid inputs) with the profile's
  valid credentials; schemathesis built-in checks plus the suite's own (``fuzz.checks``).
- ``test_fuzz_credentials[<METHOD> <path>]``: valid inputs sent with no and with wrong credentials.
- ``TestFuzzStateful``: scenarios that follow the contract's links and the inferred ones.

Run it through ``conformance run --stage fuzz --tier smoke`` (or the pytest arguments of
``conformance.stages.fuzz.pytest_args``); tier and seed come from
``conformance.stages.fuzz.plugin``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

import allure
import hypothesis
import pytest
from hypothesis.errors import FlakyStrategyDefinition
from schemathesis.generation.stateful.state_machine import StepInput, StepOutput

from conformance.stages.fuzz.auth import AuthMode
from conformance.stages.fuzz.plugin import active_settings
from conformance.stages.fuzz.schema import build_schema

if TYPE_CHECKING:
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.stages.fuzz.execution import FuzzRun

SETTINGS = active_settings()
TIER = SETTINGS.tier

# The contract in the target's terms: its declared names, statuses, enums and bounds.
schema = build_schema(TIER, SETTINGS.seed, profile=SETTINGS.profile)
credentials_schema = build_schema(
    TIER,
    SETTINGS.seed,
    profile=SETTINGS.profile,
    max_examples=TIER.auth_examples,
    positive_only=True,
)


@pytest.fixture(autouse=True)
def _allure_operation(request: pytest.FixtureRequest) -> None:
    """Give every parametrized item its own Allure history id (only when Allure is active)."""
    label = getattr(request.node, "operation_label", None)
    if label is None or not request.config.getoption("allure_report_dir", None):
        return

    allure.dynamic.parameter("operation", label)


@schema.parametrize()
def test_fuzz(case: OpenApiCase, fuzz_run: FuzzRun) -> None:
    fuzz_run.execute(case)


@credentials_schema.parametrize()
def test_fuzz_credentials(case: OpenApiCase, fuzz_run: FuzzRun) -> None:
    fuzz_run.execute(case, AuthMode.MISSING)
    fuzz_run.execute(case, AuthMode.WRONG)


@hypothesis.seed(SETTINGS.seed)
class FuzzStateMachine(schema.as_state_machine()):  # type: ignore[misc]
    """Each step goes through the same ``FuzzRun`` as the stateless tests (ids from links kept)."""

    run: ClassVar[FuzzRun | None] = None

    def __init__(self) -> None:
        super().__init__()
        if self.run is not None:  # a new scenario: the corpus keeps each one's call sequence
            self.run.scenario = []

    def step(self, input: StepInput) -> StepOutput:
        # Failures are noted, not raised: replaying a scenario against a server whose state has
        # moved on cannot reproduce it (Hypothesis reports "inconsistent data generation").
        assert self.run is not None, "TestFuzzStateful binds the session's run"
        response = self.run.execute(
            input.case, AuthMode.VALID, aim_ids=False, tally="stateful", raise_failures=False
        )
        assert response is not None  # a stateful step is sent even past the time budget
        return StepOutput(response, input.case)


class TestFuzzStateful(FuzzStateMachine.TestCase):  # type: ignore[name-defined,misc]
    settings = hypothesis.settings(
        max_examples=TIER.stateful_examples,
        stateful_step_count=TIER.stateful_steps,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(hypothesis.HealthCheck),
        phases=[hypothesis.Phase.generate, hypothesis.Phase.shrink],
    )

    def runTest(self) -> None:
        run = FuzzStateMachine.run
        assert run is not None, "_bind_run binds the session's run"
        try:
            super().runTest()
        except FlakyStrategyDefinition:
            # The target's state moved on, so a replayed prefix enables other links; Hypothesis
            # stops generating there. The scenarios that ran still count; this is no failure.
            run.stateful_stopped_early = True
        failures = run.real_failures("stateful")
        assert not failures, "stateful scenarios found: " + "; ".join(failures)

    @pytest.fixture(autouse=True)
    def _bind_run(self, fuzz_run: FuzzRun) -> Iterator[None]:
        if TIER.stateful_examples == 0:
            pytest.skip(f"the {TIER.name} tier runs no stateful scenarios")
        FuzzStateMachine.run = fuzz_run
        try:
            yield
        finally:
            FuzzStateMachine.run = None
