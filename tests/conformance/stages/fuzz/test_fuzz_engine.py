"""The fuzz stage on schemathesis's engine, one item at a time, against real servers on loopback:
what an item sends and counts, that the kit's process-wide hooks and checks serve only the run in
progress, that the time budget stops the engine in the middle of an item, and that a target that
breaks the exchange fails the item."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.profile import load
from conformance.registry.fuzz_budget import tier
from conformance.stages.fuzz import engine
from conformance.stages.fuzz.aiming import FuzzTarget
from conformance.stages.fuzz.answers import FuzzCampaign
from conformance.stages.fuzz.auth import AuthMode
from conformance.stages.fuzz.engine import EngineErrors, EngineSchemas, fuzz
from conformance.stages.fuzz.failures import Sent
from conformance.stages.fuzz.response_checks import RuleFailure
from conformance.stages.fuzz.results import record_for
from conformance.stages.fuzz.schema import build_schema
from conformance.traffic.client import Client
from conformance.verdict.outcome import Outcome
from tests.conformance.stages.fuzz.conftest import response
from tests.support.latency_proxy import LatencyProxy

if TYPE_CHECKING:
    from refserver.runner import RunningServer


def provisioned_run(base_url: str, profile_path: Path, **tier_changes: Any) -> FuzzCampaign:
    profile = load(profile_path)
    target = FuzzTarget(base_url, profile, "cf-engine0")
    with Client(base_url, profile, run_prefix=target.run_prefix) as client:
        target.provision(client)
    return FuzzCampaign(dataclasses.replace(tier("smoke"), **tier_changes), 7, target)


@pytest.fixture
def run(fresh_reference_server: RunningServer) -> Iterator[FuzzCampaign]:
    fuzz_campaign = provisioned_run(
        fresh_reference_server.base_url, Path(fresh_reference_server.profile_path)
    )
    yield fuzz_campaign
    fuzz_campaign.session.close()


def test_an_item_fuzzes_its_own_operation_and_the_reference_server_passes(
    run: FuzzCampaign,
) -> None:
    schemas = EngineSchemas.of(run)

    assert fuzz(run, schemas, "getSdkStatus", AuthMode.VALID) == []

    assert set(run.tallies) == {("getSdkStatus", "valid")}
    counts = run.tallies[("getSdkStatus", "valid")]
    assert counts.cases >= run.tier.max_examples
    assert counts.statuses[200] > 0, counts.statuses  # aimed: the real project and credentials
    assert not engine._ACTIVE, "the run in progress is forgotten when the item ends"


def test_credentials_items_count_in_their_mode_and_are_refused(run: FuzzCampaign) -> None:
    schemas = EngineSchemas.of(run)

    assert fuzz(run, schemas, "getSdkStatus", AuthMode.MISSING) == []

    counts = run.tallies[("getSdkStatus", "missing")]
    refusing = set(run.target.profile.errors.missing_credentials_status)
    assert counts.cases > 0 and set(counts.statuses) <= refusing, counts.statuses


def test_the_stateful_item_follows_links_across_operations(run: FuzzCampaign) -> None:
    schemas = EngineSchemas.of(run)

    assert fuzz(run, schemas, None, AuthMode.VALID) == []

    stateful = {op for op, kind in run.tallies if kind == "stateful"}
    assert len(stateful) > 1, run.tallies


def test_the_kit_leaves_every_other_schema_alone(run: FuzzCampaign) -> None:
    mine = EngineSchemas.of(run).valid
    other = build_schema(run.tier, 1)
    case = other["/sdk/v2/status"]["GET"].Case(headers={"x-own": "1"})
    broken = response(500, b"not json")
    engine._ACTIVE[:] = [engine._Active(run, mine, AuthMode.VALID, "valid", aim_ids=True)]
    try:
        engine.before_call(None, case, {})  # type: ignore[arg-type]
        assert case.headers == {"x-own": "1"}, "a case of another schema is not aimed"
        check = engine._delegate("error_body_shape")
        assert check(None, broken, case) is None  # type: ignore[arg-type]
        assert engine.filter_failure(None, AssertionError(), case, broken) is True  # type: ignore[arg-type]
    finally:
        engine._ACTIVE.clear()
    assert run.tallies == {} and run.failures == {}


def test_the_time_budget_stops_the_engine_inside_an_item(
    fresh_reference_server: RunningServer,
) -> None:
    with LatencyProxy(fresh_reference_server.base_url, 100) as proxy:
        run = provisioned_run(
            proxy.base_url,
            Path(fresh_reference_server.profile_path),
            max_examples=500,
            time_budget_s=3.0,
        )
        schemas = EngineSchemas.of(run)
        started = time.monotonic()
        assert fuzz(run, schemas, "getSdkBootstrap", AuthMode.VALID) == []
        took = time.monotonic() - started
        assert fuzz(run, schemas, "getSdkStatus", AuthMode.VALID) == []
    # 500 examples at 100 ms each would take over 50 s: the engine stopped at the budget (plus
    # the case in flight), counted what it sent and says the rest went unsent.
    assert took < 3.0 + 5.0, took
    assert run.budget_exhausted
    bootstrap = run.tallies[("getSdkBootstrap", "valid")]
    assert 0 < bootstrap.cases < 500 and bootstrap.unsent == 1
    status = run.tallies[("getSdkStatus", "valid")]
    assert status.cases == 0 and status.unsent == 1, "an item past the budget sends nothing"
    record = record_for(run, "t", "getSdkStatus", ("valid",), ("R-1",), 0.0, None)
    assert record.outcomes["R-1"] is Outcome.NOT_MEASURABLE
    assert "time budget" in record.note["R-1"]


def test_a_target_that_refuses_connections_fails_the_item(
    closed_port_url: str, reference_server: RunningServer
) -> None:
    profile = load(Path(reference_server.profile_path))
    run = FuzzCampaign(tier("smoke"), 7, FuzzTarget(closed_port_url, profile, "cf-engine1"))
    schemas = EngineSchemas.of(run)

    with pytest.raises(EngineErrors) as raised:
        fuzz(run, schemas, "getSdkStatus", AuthMode.VALID)

    record = record_for(run, "t", "getSdkStatus", ("valid",), ("R-1",), 0.0, raised.value)
    assert record.outcomes["R-1"] is Outcome.FAIL
    assert "EngineErrors" in record.message and "Connection" in record.message, record.message
    assert profile.credentials.pat not in record.message


def planted(check: str, case: Any) -> RuleFailure:
    """A failure of ``check`` on ``case``, as the suite's own checks raise one."""
    return RuleFailure(
        check=check, requirement_ids=("R-1",), operation=case.operation.label, title="planted",
        message="planted",
    )  # fmt: skip


def test_what_a_traceback_shows_of_a_run_holds_no_credential(run: FuzzCampaign) -> None:
    # pytest prints a failing item's arguments (the session's run among them) with their repr.
    schemas = EngineSchemas.of(run)
    fuzz(run, schemas, "getSdkStatus", AuthMode.VALID)
    case = schemas.valid["/sdk/v2/status"]["GET"].Case()
    run.target.prepare(case)
    run.note("getSdkStatus", "valid", case, response(500), planted("error_body_shape", case))
    secrets = run.target.profile.secret_names()
    shown = repr(run) + repr(list(run.failures.values()))
    assert run.failures and secrets
    assert not [name for name in secrets if str(name) in shown]


def test_a_stateful_failure_keeps_the_calls_that_led_to_it(run: FuzzCampaign) -> None:
    from schemathesis.engine.recorder import ScenarioRecorder

    schema = EngineSchemas.of(run).valid
    first, second, failing = (
        schema[path]["GET"].Case()
        for path in ("/sdk/v2/bootstrap", "/sdk/v2/status", "/sdk/v2/status")
    )
    active = engine._Active(run, schema, AuthMode.VALID, "stateful", aim_ids=False)
    recorder = ScenarioRecorder(label="stateful")
    parent = None
    for case, operation_id in zip(
        (first, second, failing), ("getSdkBootstrap", "getSdkStatus", "getSdkStatus"), strict=True
    ):
        recorder.record_case(case=case, parent_id=parent)
        active.sent[case.id] = Sent.of(operation_id, case, response(200))
        parent = case.id
    failure = planted("etag_equals_body_hash", failing)
    run.note("getSdkStatus", "stateful", failing, response(200), failure)
    recorder.record_check_failure(
        name="etag_equals_body_hash", case_id=failing.id, code_sample="", failure=failure
    )

    engine._keep_chains(run, active, recorder)

    seen = run.failures[("getSdkStatus", "stateful", "etag_equals_body_hash")]
    # The corpus keeps the sequence the engine linked, in the order it was sent.
    assert seen.chained
    assert [sent.operation_id for sent in seen.sent] == [
        "getSdkBootstrap",
        "getSdkStatus",
        "getSdkStatus",
    ]


def test_the_stateful_record_speaks_only_for_operations_its_scenarios_reached(
    run: FuzzCampaign,
) -> None:
    ids = ("ERR-NO-SERVER-ERROR", "SDK-STATUS-ETAG-EQUALS-HASH")
    run.tally("createConfiguration", "stateful").cases = 3
    record = record_for(run, "t", None, ("stateful",), ids, 0.0, None)
    # No scenario polled the status: the stateful test claims nothing about its ETag.
    assert record.outcomes == {"ERR-NO-SERVER-ERROR": Outcome.PASS}
    run.tally("getSdkStatus", "stateful").cases = 1
    record = record_for(run, "t", None, ("stateful",), ids, 0.0, None)
    assert record.outcomes == dict.fromkeys(ids, Outcome.PASS)


class FirstStatusAnswer500:
    """Answers 500 to the first status poll only, then lets the reference server answer."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.broken = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/sdk/v2/status" or self.broken:
            await self.app(scope, receive, send)
            return
        self.broken = True
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def test_a_failure_does_not_stop_the_operation_every_case_runs_every_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from refserver.runner import start_server

    # The generated phase alone: its first case is the one answered 500 (a stopped phase would
    # end there, with a shrink that finds the server answering again).
    monkeypatch.setattr(engine, "UNIT_PHASES", ("fuzzing",))
    server = start_server(tmp_path / "first500.db", wrap=FirstStatusAnswer500)
    try:
        run = provisioned_run(server.base_url, Path(server.profile_path), max_examples=20)
        schemas = EngineSchemas.of(run)
        found = fuzz(run, schemas, "getSdkStatus", AuthMode.VALID)
        run.session.close()
    finally:
        server.stop()
    # The first answer failed; the engine went on (as ``schemathesis run --continue-on-failure``):
    # the other checks of the operation ran on every case the tier buys, not on the one before.
    assert any("not_a_server_error" in line for line in found), found
    counts = run.tallies[("getSdkStatus", "valid")]
    assert counts.statuses[500] == 1, counts.statuses
    assert counts.cases >= run.tier.max_examples, counts.cases
    assert counts.statuses[200] > 1, counts.statuses
    record = record_for(run, "t", "getSdkStatus", ("valid",), ("ERR-NO-SERVER-ERROR",), 0.0, None)
    assert record.outcomes["ERR-NO-SERVER-ERROR"] is Outcome.FAIL
