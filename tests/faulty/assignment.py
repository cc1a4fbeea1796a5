"""The *assignment* section: defects of experiments as snapshots and units see them.

Snapshot summaries (a terminated experiment kept, server experiments under ``user``, missing or
differing fields, required properties not unioned, a hash blind to weights) and the assignment
of units (a salted or coarse bucket, an unbalanced round robin, a non-deterministic assignment,
bootstrap assignments left unlisted, the required-properties gate filled in).
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    EXP_ASSIGNMENTS,
    EXP_CREATE,
    EXP_MEMBERS,
    EXP_TERMINATE,
    EXPERIMENTS,
    SNAPSHOT,
    Fault,
    Make,
    chain,
    edit_json,
    edit_request,
    either,
    fault,
    hash_map_fault,
    ok,
    set_field,
    sha,
    summaries,
    with_identity,
    without_identity,
)


def each_summary(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Any, Request], Any]:
    def apply(data: Any, request: Request) -> Any:
        for summary in summaries(data):
            edit(summary)
        return data

    return apply


def terminated_stays(ctx: Context) -> Handler:
    """Summaries of terminated experiments are put back into the snapshot."""
    seen: dict[Any, tuple[str, dict[str, Any]]] = {}
    terminated: set[str] = set()

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if EXP_TERMINATE(request) and ok(response):
            terminated.add(request.path.split("/")[-2])
        if SNAPSHOT(request) and response.status == 200:
            data = response.json()
            experiments = data.get("experiments") or {}
            present = set()
            for kind in ("user", "server"):
                for summary in experiments.get(kind, []):
                    seen[summary.get("id")] = (kind, copy.deepcopy(summary))
                    present.add(summary.get("id"))
            for ident, (kind, summary) in seen.items():
                if str(ident) in terminated and ident not in present:
                    experiments.setdefault(kind, []).append(summary)
            return response.with_json(data)
        return response

    return handler


def required_properties_filled(ctx: Context) -> Handler:
    """Units lacking required properties are enrolled: missing ones are filled in."""
    required: set[str] = set()

    def learn(request: Request) -> Request:
        body = request.json()
        if isinstance(body, dict) and isinstance(body.get("requiredProperties"), list):
            required.update(str(p) for p in body["requiredProperties"])
        return request

    def fill(request: Request) -> Request:
        try:
            context = json.loads(request.header("unit-context") or "{}")
        except ValueError:
            return request
        if not isinstance(context, dict):
            return request
        for name in required:
            context.setdefault(name, "x")
        return request.with_header("unit-context", json.dumps(context))

    return chain(edit_request(EXP_CREATE, learn), edit_request(with_identity, fill))


def salted_units(salt: Callable[[str], str]) -> Make:
    """Units are evaluated under another id (``salt``); unitId in bodies is mapped both ways."""

    def make(ctx: Context) -> Handler:
        original: dict[str, str] = {}

        def to_server(unit: str) -> str:
            salted = salt(unit)
            original[salted] = unit
            return salted

        def unit_ids(value: Any, mapping: Callable[[str], str]) -> Any:
            if isinstance(value, dict):
                return {
                    k: mapping(v) if k == "unitId" and isinstance(v, str) else unit_ids(v, mapping)
                    for k, v in value.items()
                }
            if isinstance(value, list):
                return [unit_ids(v, mapping) for v in value]
            return value

        def outbound(request: Request) -> Request:
            unit = request.header("unit-id")
            if unit is not None and BOOTSTRAP(request):
                request = request.with_header("unit-id", to_server(unit))
            body = request.json()
            if EXPERIMENTS(request) and request.method == "POST" and isinstance(body, dict):
                request = request.with_json(unit_ids(body, to_server))
            return request

        def inbound(data: Any, request: Request) -> Any:
            return unit_ids(data, lambda s: original.get(s, s))

        return chain(
            edit_request(either(BOOTSTRAP, EXPERIMENTS), outbound), edit_json(EXPERIMENTS, inbound)
        )

    return make


def phantom_units(ctx: Context) -> Handler:
    """Each identity bootstrap is preceded by one for a phantom unit of the same type."""
    counter = itertools.count()

    async def handler(request: Request, forward: Forward) -> Response:
        if with_identity(request):
            phantom = request.with_header("unit-id", f"phantom-{next(counter)}")
            await forward(phantom)
        return await forward(request)

    return handler


def _hash_without_weights(real: str, request: Request, data: Any) -> str:
    if not isinstance(data, dict) or "configurations" not in data:
        return real
    content = {k: v for k, v in data.items() if k not in ("hash", "polling")}
    content = copy.deepcopy(content)
    for summary in summaries(content):
        summary.pop("rollout", None)
        for group in summary.get("groups", []):
            group.pop("weight", None)
    if BOOTSTRAP(request):
        for entry in content.get("configurations", []):
            entry.pop("configuration", None)
            entry.pop("privacy", None)
    return sha(json.dumps(content, sort_keys=True, separators=(",", ":")))


def _server_under_user(data: Any, request: Request) -> Any:
    experiments = data.get("experiments")
    if isinstance(experiments, dict):
        experiments["user"] = experiments.get("user", []) + experiments.get("server", [])
        experiments["server"] = []
    return data


# ------------------------------------------------------------------ the section


def assignment() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ snapshot and assignment
        fault(
            "terminated-stays-in-snapshot",
            "EXP-TERMINATE-LEAVES-SNAPSHOT",
            "A terminated experiment stays in the snapshot.",
            terminated_stays,
        ),
        fault(
            "server-experiments-under-user",
            "EXP-SNAPSHOT-BY-UNIT-TYPE",
            "Snapshots list server experiments under `user`.",
            edit_json(SNAPSHOT, _server_under_user),
        ),
        fault(
            "summary-lacks-permanent-enrollment",
            "EXP-SNAPSHOT-SUMMARY-FIELDS",
            "Snapshot summaries lack `permanentEnrollment`.",
            edit_json(SNAPSHOT, each_summary(lambda s: s.pop("permanentEnrollment", None))),
        ),
        fault(
            "summary-groups-lack-ordinal",
            "EXP-SNAPSHOT-GROUP-FIELDS",
            "Snapshot groups lack `ordinal`.",
            edit_json(
                SNAPSHOT,
                each_summary(lambda s: [g.pop("ordinal", None) for g in s.get("groups", [])]),
            ),
        ),
        fault(
            "summary-ordinals-repeat",
            "EXP-SNAPSHOT-GROUP-CONVENTIONS",
            "Every snapshot group has ordinal 0: numbers, as spec 2.5 says, but not distinct (the "
            "convention).",
            edit_json(
                SNAPSHOT,
                each_summary(lambda s: [g.update(ordinal=0) for g in s.get("groups", [])]),
            ),
        ),
        fault(
            "summary-name-differs",
            "EXP-SNAPSHOT-MATCHES-EXPERIMENT",
            "Snapshot summaries carry another name than the experiment.",
            edit_json(SNAPSHOT, each_summary(lambda s: s.update(name=f"{s.get('name')}!"))),
        ),
        fault(
            "required-properties-not-unioned",
            "EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION",
            "Snapshot requiredProperties is always empty.",
            edit_json(SNAPSHOT, set_field("requiredProperties", lambda d: [])),
        ),
        fault(
            "snapshot-hash-ignores-weights",
            "EXP-SNAPSHOT-HASH-MOVES-ON-CHANGE",
            "The snapshot hash does not cover group weights or rollout.",
            hash_map_fault(without_identity, _hash_without_weights),
        ),
        fault(
            "salted-bucket",
            "EXP-WEIGHTED-HASH-GOLDEN",
            "The weighted bucket is computed on a salted unit id (another hash function).",
            salted_units(lambda u: u + "~salt"),
        ),
        fault(
            "coarse-bucket",
            "EXP-WEIGHTED-SPLIT EXP-WEIGHTED-HASH-GOLDEN",
            "Units are bucketed on their first character only, so the split ignores weights.",
            salted_units(lambda u: u[:1]),
        ),
        fault(
            "round-robin-skips",
            "EXP-ROUND-ROBIN-BALANCED",
            "The round-robin counter also advances for a phantom unit on each evaluation.",
            phantom_units,
        ),
        fault(
            "non-deterministic-assignment",
            "EXP-ASSIGNMENT-DETERMINISTIC",
            "Each evaluation buckets the unit afresh (a random salt); the counts' scenario, whose "
            "unenrol step then misses its unit, is blocked by it (not measurable).",
            salted_units(lambda u: f"{u}~{random.random()}"),
        ),
        fault(
            "bootstrap-assignments-unlisted",
            "EXP-ASSIGNMENT-PERSISTENT",
            "Assignments made at bootstrap are not listed (only manual ones are).",
            edit_json(
                either(EXP_ASSIGNMENTS, EXP_MEMBERS),
                lambda d, r: {
                    **d,
                    "items": [
                        i for i in d.get("items", []) if i.get("source", "manual") == "manual"
                    ],
                },
            ),
        ),
        fault(
            "required-properties-filled",
            "EXP-REQUIRED-PROPERTIES-GATE",
            "Units lacking a required property are enrolled anyway.",
            required_properties_filled,
        ),
    )
