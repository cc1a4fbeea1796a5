"""Replaying corpus cases: re-send each case's steps against a target and judge its check again.

``replay_case`` rebuilds each step as a schemathesis case of the same operation in the terms of the
run's profile (a case keeps the contract's names; references filled in from this target: the objects
the fuzz run created, the profile's project and credentials, fresh instance ids and run prefix, what
earlier steps received), sends it, and runs the checks of the case's credentials mode on the last
answer, exactly as the stage does. How it came out (``Replayed.came_out``): ``fails`` (the recorded
check fails again: a regression), ``fixed`` (it passes), or ``inconclusive`` (the answer was a 429
the replay caused, or a reference could not be bound). ``replay_once`` replays a whole corpus once
per run, whatever the number of xdist workers.
"""

from __future__ import annotations

import fcntl
import json
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

from conformance.contract.document import load_contract
from conformance.contract.renamer import Renamer
from conformance.stages.fuzz import corpus
from conformance.stages.fuzz.auth import AuthMode
from conformance.stages.fuzz.corpus.capture import captures, renamed_generation
from conformance.stages.fuzz.failure_level import INTERFACE, judge
from conformance.stages.fuzz.response_checks import check_name_of, operation_id_of
from conformance.stages.fuzz.schema import REQUEST_TIMEOUT_S, build_schema

if TYPE_CHECKING:
    import requests
    from schemathesis import BaseSchema, Response
    from schemathesis.core.failures import Failure
    from schemathesis.generation.meta import CaseMetadata
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from conformance.redaction.placeholders import Redactor
    from conformance.registry.fuzz_budget import Tier
    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.tally import OperationTally

FAILS, FIXED, INCONCLUSIVE = "fails", "fixed", "inconclusive"


class ReplayContext(Protocol):
    """What a replay needs of the fuzz campaign it replays in (``answers.FuzzCampaign`` is one):
    the target and the session to send on, the tier and seed its schema is built with, and the
    campaign's own judgement of one answer, counted in no tally."""

    tier: Tier
    seed: int
    target: FuzzTarget
    session: requests.Session
    redactor: Redactor

    def curl_of(self, response: Response) -> str: ...

    def judge(
        self, case: OpenApiCase, response: Response, mode: AuthMode, sent_at: float
    ) -> tuple[list[Failure], OperationTally]: ...


class ReplayedExchange(TypedDict):
    """One step of a replay as ``conformance fuzz replay`` prints it (redacted)."""

    request: str  # the curl line
    status: int
    headers: dict[str, str]
    body: str


@dataclass
class Replayed:
    """One case replayed: how its check came out, and what was sent and received."""

    path: str
    case_id: str
    operation_id: str
    check: str
    requirement_ids: list[str]
    came_out: str  # FAILS, FIXED or INCONCLUSIVE: how the replay came out
    title: str
    reason: str = ""  # the new failure's message, or why the replay is inconclusive
    status: int | None = None
    curl: str = ""
    exchanges: list[ReplayedExchange] = field(default_factory=list)
    other_failures: list[str] = field(default_factory=list)  # checks the case was not kept for
    found: dict[str, object] = field(default_factory=dict)
    seconds: float = 0.0
    kind: str = "stateless"
    mode: str = "valid"

    @property
    def key(self) -> tuple[str, str, str]:
        """(operation, mode, check) as the stage keys its failures (mode "stateful" for one)."""
        return (self.operation_id, "stateful" if self.kind == "stateful" else self.mode, self.check)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def bindings(run: ReplayContext) -> dict[str, object]:
    """What this target has for each reference a case may carry."""
    target = run.target
    objects = target.objects
    bound: dict[str, object] = {
        "application_id": target.profile.project.application_id,
        "environment_id": target.environment_id(),
        "run_prefix": target.run_prefix,
    }
    if objects.configuration_id is not None:
        bound["configuration_id"] = objects.configuration_id
    if objects.experiment_id is not None:
        bound["experiment_id"] = objects.experiment_id
    for index, group_id in enumerate(objects.group_ids):
        bound[f"group_id_{index}"] = group_id
    return bound


def _meta(generation: corpus.Generation | None) -> CaseMetadata | None:
    """Case metadata as far as checks of invalid input read it (None for a valid input)."""
    if not generation or generation.get("mode") != "negative":
        return None
    from schemathesis import GenerationMode
    from schemathesis.core.parameters import ParameterLocation
    from schemathesis.generation.meta import (
        CaseMetadata,
        ComponentInfo,
        FuzzingPhaseData,
        GenerationInfo,
        PhaseInfo,
        TestPhase,
    )

    location = generation.get("parameter_location")
    return CaseMetadata(
        generation=GenerationInfo(time=0.0, mode=GenerationMode.NEGATIVE),
        components={
            ParameterLocation(where): ComponentInfo(mode=GenerationMode.NEGATIVE)
            for where in generation.get("negative", ())
        },
        phase=PhaseInfo(
            name=TestPhase.FUZZING,
            data=FuzzingPhaseData(
                description=generation.get("description"),
                parameter=generation.get("parameter"),
                parameter_location=None if location is None else ParameterLocation(location),
                location=None,
            ),
        ),
    )


def _case(
    schema: BaseSchema, step: corpus.Step, bound: dict[str, object], run: ReplayContext
) -> OpenApiCase:
    """One step as a case of the run's schema, in the names the run's profile declares (a case
    keeps the contract's own)."""
    secrets = corpus.secrets_by_placeholder(run.target.profile.secret_names())
    op = step["operation_id"]
    operation = schema.find_operation_by_id(op)  # type: ignore[attr-defined]
    renamer = Renamer.of(load_contract(), run.target.profile)

    def text_values(values: dict[str, str]) -> dict[str, object]:
        decoded = corpus.decode_mapping(values, bound, secrets)
        return {k: v if isinstance(v, str | list) else str(v) for k, v in decoded.items()}

    generation = step.get("generation")
    if generation:
        generation = renamed_generation(renamer, op, generation, to_target=True)
    kwargs: dict[str, object] = {
        "path_parameters": corpus.decode_mapping(step["path_parameters"], bound, secrets),
        "query": renamer.query(op, corpus.decode_mapping(step["query"], bound, secrets), True),
        "headers": renamer.headers(op, text_values(step["headers"]), True),
        "_meta": _meta(generation),
    }
    if "body" in step:
        kwargs["body"] = renamer.body(op, corpus.decode(step["body"], bound, secrets), True)
        kwargs["media_type"] = step.get("media_type")
    case: OpenApiCase = operation.Case(**kwargs)
    return case


def replay_case(run: ReplayContext, schema: BaseSchema, path: Path, data: corpus.Case) -> Replayed:
    """Send one case's steps to ``run``'s target and judge its check on the last answer."""
    started = time.perf_counter()
    result = Replayed(
        path=path.name,
        case_id=data["id"],
        operation_id=data["operation_id"],
        check=data["check"],
        requirement_ids=list(data["requirement_ids"]),
        came_out=INCONCLUSIVE,
        title=data["title"],
        found=dict(data["found"]),
        kind=data["kind"],
        mode=data["mode"],
    )
    bound = bindings(run)
    bound["instance_id"] = run.target.new_instance_id()
    missing = corpus.unbound(data["steps"], bound)
    # What an earlier step receives is bound as the steps run; anything else must exist now.
    missing = {name for name in missing if not name.startswith("step")}
    if missing:
        result.reason = "this target has no " + ", ".join(sorted(missing))
        return result
    mode = AuthMode(data["mode"])
    response = None
    case: OpenApiCase | None = None
    sent_at = time.monotonic()
    for index, step in enumerate(data["steps"], start=1):
        case = _case(schema, step, bound, run)
        sent_at = time.monotonic()
        response = case.call(
            base_url=run.target.base_url, session=run.session, timeout=REQUEST_TIMEOUT_S
        )
        bound.update(captures(index, response))
        bound["instance_id"] = run.target.new_instance_id()
        result.exchanges.append(_exchange(run, response))
    assert case is not None and response is not None
    result.status = response.status_code
    result.curl = run.curl_of(response)
    failures, tally = run.judge(case, response, mode, sent_at)
    mine = [
        f
        for f in failures
        if check_name_of(f) == data["check"]
        # judged at its level, as the run judges: a drop-in difference or a doubt is no regression
        and judge(operation_id_of(case), data["check"], f, case, response, run.target.profile).level
        == INTERFACE
    ]
    result.other_failures = sorted({check_name_of(f) for f in failures} - {data["check"]})
    if mine:
        result.came_out = FAILS
        result.reason = run.redactor.text(mine[0].message)
    elif tally.rate_limited:
        result.reason = "answered 429 after the replay's own traffic: " + tally.own_pace
    else:
        result.came_out = FIXED
    result.seconds = round(time.perf_counter() - started, 4)
    return result


def _exchange(run: ReplayContext, response: Response) -> ReplayedExchange:
    body = response.content[:2000].decode("utf-8", "replace") if response.content else ""
    return {
        "request": run.curl_of(response),
        "status": response.status_code,
        "headers": {k: ", ".join(v) for k, v in response.headers.items()},
        "body": run.redactor.text(body),
    }


def replay_corpus(
    run: ReplayContext, directory: Path, schema: BaseSchema | None = None
) -> list[Replayed]:
    """Every case of ``directory`` replayed in file order; an unreadable file is inconclusive."""
    paths = corpus.files(directory)
    if not paths:  # the contract is loaded only when there is a case to replay (it is slow)
        return []
    if schema is None:
        schema = replay_schema(run)
    results = []
    for path in paths:
        try:
            data = corpus.read(path)
        except ValueError as error:
            results.append(_unreadable(path, str(error)))
            continue
        try:
            results.append(replay_case(run, schema, path, data))
        except Exception as error:  # a transport error on one case must not hide the others
            broken = _unreadable(path, f"{type(error).__name__}: {error}"[:300])
            broken.case_id, broken.check = data["id"], data["check"]
            broken.operation_id = data["operation_id"]
            broken.requirement_ids = list(data["requirement_ids"])
            results.append(broken)
    return results


def _unreadable(path: Path, reason: str) -> Replayed:
    return Replayed(path.name, "", "", "", [], INCONCLUSIVE, "unreadable case", reason=reason)


def replay_schema(run: ReplayContext) -> BaseSchema:
    """The contract in the terms of the run's profile: the replay is judged as the run judges."""

    return build_schema(run.tier, run.seed, profile=run.target.profile)


def replay_once(run: ReplayContext, directory: Path, run_id: str) -> tuple[list[Replayed], bool]:
    """Replay the corpus once per run: the first process to get here replays, the others wait
    for its results. Returns the results and whether this process replayed them."""
    shared = Path(tempfile.gettempdir()) / f"rces-fuzz-replay-{run_id}"
    with open(f"{shared}.lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = Path(f"{shared}.json")
        if done.exists():
            rows = json.loads(done.read_text("utf-8"))
            return [Replayed(**row) for row in rows], False
        results = replay_corpus(run, directory)
        done.write_text(json.dumps([r.to_json() for r in results]), "utf-8")
        return results, True


def forget(run_id: str) -> None:
    """Remove the per-run files ``replay_once`` shares between workers."""
    shared = Path(tempfile.gettempdir()) / f"rces-fuzz-replay-{run_id}"
    for suffix in (".lock", ".json"):
        Path(f"{shared}{suffix}").unlink(missing_ok=True)
