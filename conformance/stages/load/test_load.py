"""The load stage's tests: one fleet run (Locust, in its own processes) per session, then one
test per rule judged from its records (``judge``). All in one xdist group: the fleet runs once.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pytest

from conformance.checks import conventions
from conformance.drivers.management import Configurations
from conformance.errors import NotMeasurable, UsageError
from conformance.session import wire
from conformance.stages.load import judge, objectives
from conformance.stages.load.engine import run_fleet
from conformance.stages.load.plan import Plan, plan_from
from conformance.stages.load.plugin import fleet_of
from conformance.stages.load.records import Results
from conformance.stages.load.summary import details_of
from conformance.target.resolution import Target
from conformance.traffic.client import Client
from conformance.verdict.conclusion import conclude
from conformance.verdict.finding import Finding

requirement = pytest.mark.requirement
pytestmark = [pytest.mark.xdist_group("load")]


@dataclass
class LoadRun:
    plan: Plan
    declared: judge.Declared
    results: Results


@pytest.fixture(scope="session")
def load_run(target: Target, run_prefix: str, pytestconfig: pytest.Config) -> LoadRun:
    profile = target.profile
    load = profile.load
    with Client(target.base_url, profile, run_prefix=run_prefix) as client:
        record = Configurations(client).create_ok("load", {"loadSeq": 0})
    tag = f"{run_prefix}-{os.getpid()}-{int(time.time())}"
    try:
        plan = plan_from(profile, target.base_url, tag, record.get("id"))
        results = run_fleet(plan, fleet_of(pytestconfig))
    except UsageError as error:  # the generator was run wrongly: no verdict on the target
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    results.initial_hash = str(record.get("contentHash", ""))
    declared = judge.Declared(
        burst=profile.rate_limit.burst,
        refill=profile.rate_limit.refill_per_second,
        threshold=load.shedding_threshold,
        margin=load.threshold_margin,
        propagation_s=load.propagation_seconds,
        window_s=profile.load_shedding.window_seconds,
        release=load.release_threshold,
        objectives={k: getattr(load, k) for keys in objectives.KEYS.values() for k in keys},
    )
    # the stage's summary and charts, whichever of its tests ``--requirements`` selected
    wire.publish(pytestconfig, "load", details_of(plan, declared, results))
    return LoadRun(plan, declared, results)


def unless_stopped(run: LoadRun) -> None:
    """A fleet stopped by a signal before its plan's end measured no rule: each is not
    measurable, with how far it got (its partial figures are in the stage's details)."""
    note = run.results.stop_note(run.plan.run_s)
    if note:
        raise NotMeasurable(note)


def settle(found: Finding) -> None:
    """A finding (of every requirement of its test) as the test's outcome."""
    __tracebackhide__ = True
    conclude([found])


@requirement("ERR-NO-SERVER-ERROR")
def test_no_server_error(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.no_server_error(load_run.results, load_run.plan.rate_limited_status))


@requirement("ERR-STATUS-BODY-JSON")
def test_error_bodies_json(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.error_bodies(load_run.results, shape=False))


ERROR_FIELD_KEYS = ("errors.code_field", "errors.message_field")


@requirement("ERR-BODY-SHAPE")
def test_error_bodies_shape(load_run: LoadRun, target: Target) -> None:
    ids = ("ERR-BODY-SHAPE",)
    unless_stopped(load_run)
    # A field name the profile leaves at its default is a convention (as in the scenarios):
    # a body lacking only such fields is a drop-in difference, noted once, not a failure.
    plan = load_run.plan
    named = {"errors.code_field": plan.code_field, "errors.message_field": plan.message_field}
    undeclared = {
        key: name
        for key, name in named.items()
        if name is not None and not target.profile.declares(key)
    }
    conventional = frozenset(undeclared.values())
    departed = judge.departures(load_run.results, conventional)
    if departed:
        first = departed[0]
        missing = judge.lacking(first.problem or "")
        for key, name in undeclared.items():
            if name in missing:
                received = f"HTTP {first.status} ({first.problem}), {len(departed)} answers"
                conventions.differs(ids, key, name, received, "error body under load", None)
    settle(judge.error_bodies(load_run.results, shape=True, conventions=conventional))


@requirement("LIMIT-RATE-429-RETRY-AFTER")
def test_retry_after(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.retry_after(load_run.results, load_run.plan.rate_limited_status))


@requirement("LIMIT-RATE-ENFORCED")
def test_noisy_throttled(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.noisy_throttled(load_run.results, load_run.plan, load_run.declared))


@requirement("LIMIT-RATE-WITHIN-BUDGET")
def test_fleet_within_budget(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.own_buckets(load_run.results, load_run.plan, load_run.declared))


@requirement("LIMIT-RATE-PER-INSTANCE")
def test_own_buckets(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.own_buckets_measured(load_run.results, load_run.plan, load_run.declared))


@requirement("LIMIT-RATE-SHARED-WITHOUT-ID")
def test_shared_bucket(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.shared_bucket(load_run.results, load_run.plan, load_run.declared))


@requirement("POLL-HINT-UNDER-LOAD")
def test_hint_under_load(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.hint_under_load(load_run.results, load_run.plan, load_run.declared))


@requirement("POLL-HINT-ABSENT-NORMALLY")
def test_hint_absent_normally(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.hint_absent_when_quiet(load_run.results, load_run.declared, after=False))


@requirement("POLL-HINT-GONE-AFTER-LOAD")
def test_hint_gone(load_run: LoadRun) -> None:
    """Gone once the load is low, and within the stated bound of its first appearance."""
    unless_stopped(load_run)
    settle(judge.hint_absent_when_quiet(load_run.results, load_run.declared, after=True))
    settle(judge.convergence(load_run.results, load_run.plan, load_run.declared)[0])


@requirement("POLL-HINT-VALUES-USABLE", "POLL-HINT-JITTER-RATIO-RANGE")
def test_hint_usable(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    conclude(judge.hint_shape(load_run.results))


@requirement("SDK-STATUS-HASH-MOVES-ON-WRITE", "SDK-STATUS-CONFIG-HASH-MOVES")
def test_write_visible(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(judge.write_visible(load_run.results, load_run.plan, load_run.declared))


@requirement("POLL-DECLARED-LATENCY")
def test_declared_latency(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(objectives.latency(load_run.results, load_run.declared))


@requirement("POLL-DECLARED-NOT-MODIFIED-SHARE")
def test_declared_not_modified_share(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(objectives.not_modified_share(load_run.results, load_run.declared))


@requirement("POLL-DECLARED-THROUGHPUT")
def test_declared_throughput(load_run: LoadRun) -> None:
    unless_stopped(load_run)
    settle(objectives.throughput(load_run.results, load_run.declared))
