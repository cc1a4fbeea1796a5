"""The real failures of a fuzz test as corpus cases: contract names, secrets as placeholders.

``corpus_cases`` turns the real failures of one test into corpus cases (``corpus``): for each,
the last request that failed (``failures.Sent``: the shrunk minimal case) or the stateful call
sequence behind it, with secrets as placeholders, run-bound ids as references, and the names the
target's profile declares (headers, query parameters, body fields) back in the contract's own,
so that a replay sends them in the names of the run that replays it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from conformance.contract.document import load_contract
from conformance.contract.renamer import Renamer
from conformance.stages.fuzz import corpus

if TYPE_CHECKING:
    from collections.abc import Mapping

    from schemathesis import Response
    from schemathesis.generation.meta import CaseMetadata

    from conformance.stages.fuzz.aiming import FuzzTarget
    from conformance.stages.fuzz.failures import SeenFailure, Sent


def parts_of(sent: Sent, renamer: Renamer | None = None) -> corpus.Parts:
    """What was sent; with ``renamer``, in the contract's names instead of the target's."""
    op = sent.operation_id
    headers, query = sent.headers, sent.query
    if renamer is not None:
        headers, query = renamer.headers(op, headers, False), renamer.query(op, query, False)
    parts: corpus.Parts = {
        "headers": headers,
        "path_parameters": sent.path_parameters,
        "query": query,
    }
    if sent.has_body:
        body = _jsonable(sent.body)
        parts["body"] = body if renamer is None else renamer.body(op, body, False)
        parts["media_type"] = sent.media_type
    generation = generation_of(sent.meta)
    if generation:
        if renamer is not None:
            generation = renamed_generation(renamer, op, generation, to_target=False)
        parts["generation"] = generation
    return parts


def renamed_generation(
    renamer: Renamer, operation_id: str, generation: corpus.Generation, *, to_target: bool
) -> corpus.Generation:
    """The parameter a negative case broke, in the other side's name (header or query)."""
    where, name = generation.get("parameter_location"), generation.get("parameter")
    if where not in ("header", "query") or not isinstance(name, str):
        return generation
    names = renamer.parameter_names(operation_id, where, to_target)
    return {**generation, "parameter": names.get(name.lower(), name)}


def generation_of(meta: CaseMetadata | None) -> corpus.Generation:
    """How a case was generated, as far as checks of invalid input read it."""
    if meta is None:
        return {}
    mode = str(getattr(meta.generation.mode, "value", meta.generation.mode))
    if mode != "negative":
        return {}
    data = meta.phase.data
    location = getattr(data, "parameter_location", None)
    return {
        "mode": mode,
        "negative": sorted(
            str(getattr(where, "value", where))
            for where, info in meta.components.items()
            if str(getattr(info.mode, "value", info.mode)) == "negative"
        ),
        "parameter": getattr(data, "parameter", None),
        "parameter_location": None if location is None else str(location.value),
        "description": getattr(data, "description", None),
    }


def _jsonable(value: object) -> object:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def references(target: FuzzTarget) -> corpus.References:
    objects = target.objects
    by_name: dict[str, object] = {
        "application_id": target.profile.project.application_id,
        "environment_id": target.environment_id(),
    }
    if objects.configuration_id is not None:
        by_name["configuration_id"] = objects.configuration_id
    if objects.experiment_id is not None:
        by_name["experiment_id"] = objects.experiment_id
    for index, group_id in enumerate(objects.group_ids):
        by_name[f"group_id_{index}"] = group_id
    return corpus.References(
        by_name=by_name,
        run_prefix=target.run_prefix,
        instance_prefix=target.name_prefix,
        secrets=target.profile.secret_names(),
    )


def captures(index: int, response: Response) -> dict[str, str | int]:
    """What step ``index`` (1-based) received that a later step may send back."""
    found: dict[str, str | int] = {}
    etag = response.headers.get("etag")
    if etag:
        found[f"step{index}.etag"] = etag[0] if isinstance(etag, list) else etag
    try:
        body = json.loads(response.content) if response.content else None
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("id"), int | str):
        found[f"step{index}.id"] = body["id"]
    return found


def encode_steps(target: FuzzTarget, sent: list[Sent]) -> list[corpus.Step]:
    """The steps of a case in the contract's names, each sent value that an earlier step
    received as a reference."""
    refs = references(target)
    renamer = Renamer.of(load_contract(), target.profile)
    steps = []
    for index, one in enumerate(sent, start=1):
        steps.append(
            corpus.encode_step(
                one.operation_id,
                one.method,
                one.path,
                parts_of(one, renamer),
                refs,
            )
        )
        # Header values (If-None-Match) an earlier step received: references to it.
        _etag_references(steps[-1], refs)
        refs.by_name.update(captures(index, one.response))
    return steps


def _etag_references(step: corpus.Step, refs: corpus.References) -> None:
    for name, value in list(step["headers"].items()):
        for ref, known in refs.by_name.items():
            if ref.endswith(".etag") and value == known:
                step["headers"][name] = "${" + ref + "}"


def corpus_cases(
    failures: Mapping[tuple[str, str, str], SeenFailure],
    target: FuzzTarget,
    found_by: Mapping[str, object],
    operation_id: str | None,
    modes: tuple[str, ...],
) -> list[corpus.Case]:
    """The real failures of one test (one operation, None: all) as corpus cases; ``found_by``
    (tier, seed) goes into each case's ``found``."""
    found = []
    for (op, kind, check), seen in failures.items():
        if not seen.real or not seen.sent or kind not in modes or operation_id not in (None, op):
            continue
        expected, said, received = seen.message.partition("\nReceived:")
        if not said:  # a built-in check's own wording: all of it is what was received
            expected, received = "", seen.message
        found.append(
            corpus_case(
                target,
                kind="stateful" if kind == "stateful" else "stateless",
                mode="valid" if kind == "stateful" else kind,
                check=check,
                requirement_ids=seen.requirement_ids,
                title=seen.title,
                sent=seen.sent,
                found={
                    **found_by,
                    "status": seen.status,
                    "expected": expected.removeprefix("Expected:").strip() or "the check to pass",
                    "received": received.strip(),
                    "curl": seen.curl,
                },
            )
        )
    return found


def corpus_case(
    target: FuzzTarget,
    *,
    kind: str,
    mode: str,
    check: str,
    requirement_ids: tuple[str, ...],
    title: str,
    sent: list[Sent],
    found: Mapping[str, object],
) -> corpus.Case:
    return corpus.new_case(
        kind=kind,
        mode=mode,
        check=check,
        requirement_ids=requirement_ids,
        title=title,
        steps=encode_steps(target, sent),
        found=found,
    )
