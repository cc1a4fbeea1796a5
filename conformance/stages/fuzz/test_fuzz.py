"""The fuzz stage: every contract operation fuzzed against the target, statelessly and statefully.

Three test families, one item per operation where it applies; each item runs schemathesis's
engine on its share (``conformance.stages.fuzz.engine``):

- ``test_fuzz[<METHOD> <path>]``: generated cases (valid and invalid inputs) with the profile's
  valid credentials; schemathesis built-in checks plus the suite's own (``response_checks``).
- ``test_fuzz_credentials[<METHOD> <path>]``: valid inputs sent with no and with wrong credentials.
- ``test_fuzz_stateful``: scenarios that follow the contract's links and the inferred ones.

Run it through ``conformance run --stage fuzz --tier smoke`` (or the pytest arguments of
``conformance.registry.fuzz.pytest_args``); tier and seed come from
``conformance.stages.fuzz.plugin``, which also declares the items: one ``pytest.param`` per
operation for each ``fuzz_family`` (nothing is read from the plugin at import).
"""

from __future__ import annotations

import allure
import pytest

from conformance.stages.fuzz.answers import FuzzCampaign
from conformance.stages.fuzz.auth import AuthMode
from conformance.stages.fuzz.engine import EngineSchemas, fuzz
from conformance.stages.fuzz.plugin import (
    AUTH,
    STATEFUL_ITEM,
    STATEFUL_REQUIREMENTS,
    VALID,
    FuzzItem,
)

# One worker runs every fuzz item, in collection order: under xdist the items would otherwise
# land on workers by their pace, each with its own objects and share of the rate limit, and the
# same seed would not give the same cases.
pytestmark = [pytest.mark.xdist_group("fuzz")]


@pytest.fixture(scope="session")
def engine_schemas(fuzz_campaign: FuzzCampaign) -> EngineSchemas:
    return EngineSchemas.of(fuzz_campaign)


@pytest.fixture(autouse=True)
def _allure_operation(request: pytest.FixtureRequest) -> None:
    """Give every parametrized item its own Allure history id (only when Allure is active)."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is None or not request.config.getoption("allure_report_dir", None):
        return
    allure.dynamic.parameter("operation", callspec.id)


@pytest.mark.fuzz_family(VALID)
def test_fuzz(
    fuzz_item: FuzzItem, fuzz_campaign: FuzzCampaign, engine_schemas: EngineSchemas
) -> None:
    found = fuzz(fuzz_campaign, engine_schemas, fuzz_item.operation_id, AuthMode.VALID)
    assert not found, "fuzzing found: " + "; ".join(found)


@pytest.mark.fuzz_family(AUTH)
def test_fuzz_credentials(
    fuzz_item: FuzzItem, fuzz_campaign: FuzzCampaign, engine_schemas: EngineSchemas
) -> None:
    found = fuzz(fuzz_campaign, engine_schemas, fuzz_item.operation_id, AuthMode.MISSING)
    found += fuzz(fuzz_campaign, engine_schemas, fuzz_item.operation_id, AuthMode.WRONG)
    assert not found, "requests without valid credentials: " + "; ".join(found)


@pytest.mark.fuzz_item(STATEFUL_ITEM)
@pytest.mark.requirement(*STATEFUL_REQUIREMENTS)
def test_fuzz_stateful(fuzz_campaign: FuzzCampaign, engine_schemas: EngineSchemas) -> None:
    if fuzz_campaign.tier.stateful_examples == 0:
        pytest.skip(f"the {fuzz_campaign.tier.name} tier runs no stateful scenarios")
    found = fuzz(fuzz_campaign, engine_schemas, None, AuthMode.VALID)
    assert not found, "stateful scenarios found: " + "; ".join(found)
