"""Self-test: every core server requirement has a scenario, and no scenario names an unknown id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.catalogue.requirements import load_catalogue


@pytest.fixture(scope="module")
def scenario_ids(request: pytest.FixtureRequest) -> dict[str, set[str]]:
    """Requirement id -> scenario node ids, from collecting ``conformance.stages.scenarios``."""
    found: dict[str, set[str]] = {}
    for item in _collect(request.config):
        for mark in item.iter_markers("requirement"):
            for rid in mark.args:
                found.setdefault(str(rid), set()).add(item.nodeid)
    return found


def _collect(config: pytest.Config) -> Iterator[pytest.Item]:
    """Collect the scenario package in a separate session (no target is touched)."""
    items: list[pytest.Item] = []

    class Grab:
        def pytest_collection_finish(self, session: pytest.Session) -> None:
            items.extend(session.items)

    code = pytest.main(
        [
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--pyargs",
            "conformance.stages.scenarios",
        ],
        plugins=[Grab()],
    )
    assert code == pytest.ExitCode.OK, f"collecting conformance.stages.scenarios failed ({code})"
    return iter(items)


def test_every_core_server_requirement_has_a_scenario(scenario_ids: dict[str, set[str]]) -> None:
    wanted = {r.id for r in load_catalogue() if r.checkable}  # core and experiments
    missing = sorted(wanted - set(scenario_ids))
    assert not missing, f"core server requirements without a scenario: {missing}"


def test_scenarios_name_only_catalogue_ids(scenario_ids: dict[str, set[str]]) -> None:
    known = {r.id for r in load_catalogue()}
    unknown = {rid: sorted(nodes)[:2] for rid, nodes in scenario_ids.items() if rid not in known}
    assert not unknown, f"scenarios name requirement ids missing from the catalogue: {unknown}"


def test_a_stages_own_requirements_have_no_scenario(scenario_ids: dict[str, set[str]]) -> None:
    owned = {r.id: r.stages for r in load_catalogue() if not r.checkable and r.subject == "server"}
    assert owned, "the catalogue names no stage-owned requirement"
    named = sorted(set(owned) & set(scenario_ids))
    assert not named, f"scenarios name requirements another stage judges alone: {named}"


def test_scenarios_never_name_client_requirements(scenario_ids: dict[str, set[str]]) -> None:
    clients = {r.id for r in load_catalogue() if r.subject == "client"}
    assert not clients & set(scenario_ids), "client-side rules cannot be checked on a server"
