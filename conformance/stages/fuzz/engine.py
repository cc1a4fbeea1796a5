"""Sending the fuzz stage's cases on schemathesis's own engine, run once per fuzz item.

The engine is the one behind ``schemathesis run``, with its phases and its feedback from answers
to generation. ``EngineSchemas`` holds the two schemas of a session (valid input in both
generation modes; valid input only, for the credentials runs), built once. ``fuzz`` runs the
engine on one item's share: one operation in one credentials mode, or every operation
statefully (the failures noted for it: ``FuzzCampaign.failures``). The engine sends the cases
in its own thread; the kit takes part through hooks and checks that schemathesis keeps in
process-wide registries, so they are registered once, here, and serve only the run in progress
(``_ACTIVE``), keyed by the schema object it runs: any other schemathesis use in the process (the
corpus replay, a user's own tests) is left alone.

- ``before_call`` aims the case at the target (``FuzzTarget.prepare``: real ids, credentials of
  the mode); the engine revalidates what the hook changed.
- ``after_call`` counts the answer and replays the declared bucket (``FuzzCampaign.answered``).
- The suite's checks are registered under their own names and delegate to the run's, bound to
  the target's error shape; ``credentials_rejected`` and ``unprovoked_rate_limit`` likewise.
- ``filter_failure`` notes every failure (``FuzzCampaign.note``, which judges its level) and lets
  only real ones (an interface constraint broken) reach the engine's record: a drop-in
  difference, a spec-doubt, or a check a 429 of the fuzzer's own pace silences is no failure.
- ``continue_on_failure``: no failure stops an operation (as ``schemathesis run
  --continue-on-failure``); every case the tier buys is sent and runs every check.

The time budget is a cap: a timer stops the stream once the tier's time is spent. Errors the
engine reports for the item's operations (a reset, a timeout) are evidence against the target.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import schemathesis
from schemathesis.engine import events, from_schema

from conformance.stages.fuzz.answers import EXCLUDED_BUILTINS, UNPROVOKED, FuzzCampaign
from conformance.stages.fuzz.auth import AuthMode
from conformance.stages.fuzz.failures import Sent
from conformance.stages.fuzz.response_checks import CUSTOM_BY_NAME, check_name_of, operation_id_of
from conformance.stages.fuzz.schema import build_schema

if TYPE_CHECKING:
    from schemathesis import BaseSchema, CheckContext, Response
    from schemathesis.core.failures import Failure
    from schemathesis.engine.recorder import ScenarioRecorder
    from schemathesis.hooks import HookContext
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.traffic.ledger import Replay

CREDENTIALS_CHECK = "credentials_rejected"
# The phases of one item: an operation's own (valid or wrong credentials), or the linked calls.
UNIT_PHASES: tuple[str, ...] = ("examples", "fuzzing")
STATEFUL_PHASES: tuple[str, ...] = ("stateful",)
# Errors of generation (a schema Hypothesis cannot satisfy) are the contract's, not the target's.
SUITE_ERROR_MODULES = ("hypothesis.",)


class EngineErrors(Exception):
    """The engine could not finish an item's cases for a reason of the target's (a reset, a
    timeout, a refused connection)."""


@dataclass
class _Active:
    """The engine run in progress: whom the process-wide hooks and checks serve."""

    run: FuzzCampaign
    schema: BaseSchema
    mode: AuthMode
    kind: str  # the tally the cases count in: the mode's value, or "stateful"
    aim_ids: bool
    replays: dict[str, Replay | None] = field(default_factory=dict)
    sent: dict[str, Sent] = field(default_factory=dict)  # stateful: case id -> the call


_ACTIVE: list[_Active] = []


def _serving(case: OpenApiCase) -> _Active | None:
    active = _ACTIVE[0] if _ACTIVE else None
    if active is None or case.operation.schema is not active.schema:
        return None
    return active


# ------------------------------------------------------------------ process-wide registrations


@schemathesis.hook
def before_call(context: HookContext, case: OpenApiCase, kwargs: dict[str, object]) -> None:
    active = _serving(case)
    if active is not None:
        active.run.case_log.add(active.kind, operation_id_of(case), case)  # as generated
        active.run.target.prepare(case, active.mode, aim_ids=active.aim_ids)


@schemathesis.hook
def after_call(context: HookContext, case: OpenApiCase, response: Response) -> None:
    active = _serving(case)
    if active is None:
        return
    sent_at = time.monotonic() - response.elapsed
    active.run.case_log.answer(active.kind, response, active.run.target.run_prefix)
    replay = active.run.answered(case, response, active.mode, active.kind, sent_at)
    active.replays[case.id] = replay
    if active.kind == "stateful":
        active.sent[case.id] = Sent.of(operation_id_of(case), case, response)


@schemathesis.hook
def filter_failure(
    context: HookContext, failure: Failure, case: OpenApiCase, response: Response
) -> bool:
    active = _serving(case)
    if active is None:
        return True
    if not active.run.counts_against(check_name_of(failure), response, active.replays.get(case.id)):
        return False
    return active.run.note(operation_id_of(case), active.kind, case, response, failure)


CheckFunction = Callable[["CheckContext", "Response", "OpenApiCase"], "bool | None"]


def _delegate(name: str) -> CheckFunction:
    def check(ctx: CheckContext, response: Response, case: OpenApiCase) -> bool | None:
        active = _serving(case)
        if active is None:
            return None
        if name == CREDENTIALS_CHECK:
            return active.run.credential_check(active.mode)(ctx, response, case)
        if name == UNPROVOKED:
            found = active.run.unprovoked(case, response, active.replays.get(case.id))
            if found is not None:
                raise found
            return None
        return active.run.check_named(name)(ctx, response, case)

    check.__name__ = check.__qualname__ = name
    return check


for _name in (*CUSTOM_BY_NAME, CREDENTIALS_CHECK, UNPROVOKED):
    schemathesis.check(_delegate(_name))


# ------------------------------------------------------------------ the schemas of a session


@dataclass
class EngineSchemas:
    """The session's schemas: built once, narrowed to one operation per item."""

    valid: BaseSchema
    credentials: BaseSchema

    @classmethod
    def of(cls, run: FuzzCampaign) -> EngineSchemas:
        tier, seed, profile = run.tier, run.seed, run.target.profile
        valid = build_schema(tier, seed, profile=profile)
        credentials = build_schema(
            tier, seed, profile=profile, max_examples=tier.auth_examples, positive_only=True
        )
        for schema in (valid, credentials):
            # A failure does not stop the operation: every case the tier buys runs every check,
            # so a requirement that passes passed on all of them (``schemathesis run
            # --continue-on-failure``), not on the cases before another check's first failure.
            schema.config.update(base_url=run.target.base_url, continue_on_failure=True)
        valid.config.checks.update(excluded_check_names=[*EXCLUDED_BUILTINS, CREDENTIALS_CHECK])
        credentials.config.checks.update(
            included_check_names=[CREDENTIALS_CHECK, "error_body_shape"]
        )
        return cls(valid, credentials)


# ------------------------------------------------------------------ one item


def fuzz(
    run: FuzzCampaign, schemas: EngineSchemas, operation_id: str | None, mode: AuthMode
) -> list[str]:
    """Run the engine on one item's share: ``operation_id`` in ``mode`` (None: every operation,
    statefully). Returns the real failures noted for it; raises ``EngineErrors`` when the
    target broke the exchange."""

    if operation_id is None:
        schema, kind, phases = schemas.valid, "stateful", STATEFUL_PHASES
    else:
        base = schemas.valid if mode is AuthMode.VALID else schemas.credentials
        schema, kind = base.include(operation_id=operation_id), mode.value
        phases = (
            (*UNIT_PHASES, "coverage") if run.tier.coverage and kind == "valid" else UNIT_PHASES
        )
    left = run.budget_left()
    if left <= 0:
        run.budget_exhausted = True
        run.tally(operation_id or "*", kind).unsent += 1
        return []
    schema.config.phases.update(phases=list(phases))
    active = _Active(run, schema, mode, kind, aim_ids=operation_id is not None)
    stream = from_schema(schema).execute()
    cut = threading.Event()  # set when the budget, not the engine, ended the run

    def stop() -> None:
        cut.set()
        stream.stop()

    timer = threading.Timer(left, stop)
    timer.daemon = True
    recorders: list[ScenarioRecorder] = []
    errors: list[str] = []
    _ACTIVE[:] = [active]
    timer.start()
    try:
        for event in stream:
            if isinstance(event, events.ScenarioFinished) and kind == "stateful":
                recorders.append(event.recorder)
            elif isinstance(event, events.NonFatalError):
                if type(event.value).__module__.startswith(SUITE_ERROR_MODULES):
                    run.suite_errors.append(f"{event.label}: {event.info.title}")
                else:
                    errors.append(f"{event.label}: {event.info.title}: {event.info.message}")
            elif isinstance(event, events.FatalError):
                errors.append(f"{type(event.exception).__name__}: {event.exception}")
    finally:
        timer.cancel()
        stream.stop()
        _ACTIVE.clear()
    if cut.is_set():
        run.budget_exhausted = True
        run.tally(operation_id or "*", kind).unsent += 1
    for recorder in recorders:
        _keep_chains(run, active, recorder)
    if errors:
        raise EngineErrors(run.redactor.text("; ".join(errors))[:2000])
    return run.failures.real_lines(kind, operation_id)


def _keep_chains(run: FuzzCampaign, active: _Active, recorder: ScenarioRecorder) -> None:
    """Give each real stateful failure the calls that led to it (the engine links them)."""
    for case_id in recorder.failing_case_ids():
        node = recorder.cases.get(case_id)
        if node is None:
            continue
        chain = [
            active.sent[case.id]
            for case in recorder.iter_chain_cases(case_id=case_id)
            if case.id in active.sent
        ]
        for check in recorder.checks.get(case_id, []):
            if check.failure_info is not None:
                name = check_name_of(check.failure_info.failure)
                run.failures.keep_chain((operation_id_of(node.value), "stateful", name), chain)
