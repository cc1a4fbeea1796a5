"""The *patches* section: defects of ``PATCH`` on a configuration.

RFC 6902 operations applied wrongly (``remove`` ignored, ``move`` as ``copy``, ``test`` refused,
the ``-`` end marker prepending), the key-order sidecar ignored or reversed, ``baseHash``
conflicts missed or invented, a conflict that still writes, a malformed patch accepted, and a
patch reaching another project. Some defects are emulated from outside with sub-requests: a
half-applied patch replays the longest applicable prefix of its operations before answering the
409; a racy base compare drops ``baseHash`` while another patch of the same configuration is in
flight.
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Callable
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    CREATE,
    PATCH,
    Fault,
    answer,
    chain,
    drop,
    each_config,
    edit_json,
    edit_request_json,
    fault,
    ok,
    on_status,
    with_path,
    without_identity,
)

RACE_WINDOW_SECONDS = 0.2  # racy-base-compare: how long the first patch's window stays open


def ops_of(request: Request) -> list[dict[str, Any]]:
    body = request.json()
    ops = body.get("operations") if isinstance(body, dict) else None
    return [op for op in ops if isinstance(op, dict)] if isinstance(ops, list) else []


def edit_ops(edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> Handler:
    """Rewrite the operations list of a patch body."""

    def rewrite(body: Any) -> Any:
        if isinstance(body, dict) and isinstance(body.get("operations"), list):
            body["operations"] = edit(body["operations"])
        return body

    return edit_request_json(PATCH, rewrite)


def frozen_documents(ctx: Context) -> Handler:
    first: dict[Any, Any] = {}

    def edit(entry: dict[str, Any]) -> None:
        if "configuration" in entry:
            entry["configuration"] = first.setdefault(entry.get("id"), entry["configuration"])

    def learn(data: Any, request: Request) -> Any:
        first.setdefault(data.get("id"), copy.deepcopy(data.get("configuration")))
        return data

    return chain(edit_json(CREATE, learn), edit_json(without_identity, each_config(edit)))


def half_applied(ctx: Context) -> Handler:
    """On a conflict, the longest prefix of the operations that applies is written anyway."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not PATCH(request) or response.status != 409:
            return response
        ops = ops_of(request)
        for size in range(len(ops) - 1, 0, -1):
            trial = await forward(request.with_json({"operations": ops[:size]}))
            if ok(trial):
                break
        return response

    return handler


def stale_written_anyway(ctx: Context) -> Handler:
    """A stale-base 409 is answered, but the operations are written all the same."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = request.json()
        stale = response.status == 409 and "STALE" in response.body.decode(errors="replace")
        if PATCH(request) and stale and isinstance(body, dict):
            body.pop("baseHash", None)
            await forward(request.with_json(body))
        return response

    return handler


def racy_base(ctx: Context) -> Handler:
    """The baseHash compare and the write are not atomic: a patch that arrives while another
    patch of the same configuration is in flight skips the compare (last writer wins). The
    first patch holds its window open for RACE_WINDOW_SECONDS (the gap between compare and
    write), so writers released together overlap however loaded the machine is."""
    in_flight: dict[str, int] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        if not PATCH(request):
            return await forward(request)
        key = request.path
        busy = in_flight.get(key, 0) > 0
        in_flight[key] = in_flight.get(key, 0) + 1
        try:
            body = request.json()
            if busy and isinstance(body, dict):
                body.pop("baseHash", None)
                request = request.with_json(body)
            elif not busy:
                await asyncio.sleep(RACE_WINDOW_SECONDS)
            return await forward(request)
        finally:
            in_flight[key] -= 1

    return handler


def replace_moves_to_end(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for op in ops:
        if op.get("op") == "replace" and not str(op.get("path", "")).split("/")[-1].isdigit():
            out += [
                {"op": "remove", "path": op["path"]},
                {"op": "add", **{k: v for k, v in op.items() if k != "op"}},
            ]
        else:
            out.append(op)
    return out


def reversed_sidecar(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("keyOrder"), dict):
        body["keyOrder"] = {
            k: list(reversed(v)) if isinstance(v, list) else v for k, v in body["keyOrder"].items()
        }
    return body


def inapplicable_ignored(request: Request, response: Response) -> Request | Response:
    body = request.json()
    if (
        isinstance(body, dict)
        and "keyOrder" in body
        and "PATCH_NOT_APPLICABLE" in response.body.decode()
    ):
        body.pop("keyOrder")
        return request.with_json(body)
    return response


def conflict_as_ok(request: Request, response: Response) -> Request | Response:
    if "PATCH_NOT_APPLICABLE" in response.body.decode() and "keyOrder" not in (
        request.json() or {}
    ):
        return request.with_json({})
    return response


def malformed_as_noop(request: Request, response: Response) -> Request | Response:
    if PATCH(request) and "INVALID_PATCH" in response.body.decode():
        return request.with_json({})
    return response


# ------------------------------------------------------------------ the section


def patches() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ configuration patch
        fault(
            "patch-record-lacks-comments",
            "CFG-PATCH-RECORD-SHAPE",
            "Patch answers a record without `comments`.",
            edit_json(PATCH, drop("comments")),
        ),
        fault(
            "patch-ignores-remove",
            "CFG-PATCH-OPS-ADD-REMOVE-REPLACE CFG-PATCH-409-INAPPLICABLE "
            "CFG-PATCH-409-NOTHING-CHANGES CFG-PATCH-KEY-ORDER-KEPT CFG-PATCH-OPS-ARRAYS "
            "CFG-PATCH-ATOMIC",
            "RFC 6902 `remove` operations are skipped.",
            edit_ops(lambda ops: [op for op in ops if op.get("op") != "remove"]),
        ),
        fault(
            "patch-move-copies",
            "CFG-PATCH-OPS-MOVE-COPY CFG-PATCH-409-INAPPLICABLE",
            "`move` is applied as `copy` (the source stays).",
            edit_ops(
                lambda ops: [{**op, "op": "copy"} if op.get("op") == "move" else op for op in ops]
            ),
        ),
        fault(
            "patch-refuses-test",
            "CFG-PATCH-OPS-TEST",
            "Any patch holding a `test` operation answers 409, even when the test passes.",
            answer(
                PATCH,
                lambda r: (
                    error_response(409, "PATCH_NOT_APPLICABLE")
                    if any(op.get("op") == "test" for op in ops_of(r))
                    else None
                ),
            ),
        ),
        fault(
            "patch-end-marker-prepends",
            "CFG-PATCH-OPS-ARRAYS CFG-PATCH-OPS-ADD-REMOVE-REPLACE",
            "The array end marker `-` inserts at the front instead of appending (an object "
            "member named `-` is added as `0`: the marker is read without looking at the parent, "
            "which breaks add on objects too).",
            edit_ops(
                lambda ops: [
                    {**op, "path": re.sub(r"/-$", "/0", str(op.get("path")))}
                    if op.get("op") in ("add", "copy", "move")
                    else op
                    for op in ops
                ]
            ),
        ),
        fault(
            "bootstrap-documents-stale",
            "CFG-PATCH-PERSISTS SDK-BOOTSTRAP-DOCUMENTS-CURRENT CFG-PATCH-409-NOTHING-CHANGES "
            "CFG-PATCH-CONCURRENT-ONE-WINS",
            "Reads serve each configuration's document as first written (a stale read cache): a "
            "patch result is never what later reads see, so every check that reads the stored "
            "content back after a patch fails.",
            frozen_documents,
        ),
        fault(
            "patch-replace-moves-member",
            "CFG-PATCH-KEY-ORDER-KEPT CFG-PATCH-OPS-ADD-REMOVE-REPLACE",
            "`replace` of an object member removes and re-adds it, moving it to the end (a "
            "`replace` of the whole document, path ``, becomes a `remove` of the root, which "
            "fails: RFC 6902 lets replace write the root).",
            edit_ops(replace_moves_to_end),
        ),
        fault(
            "sidecar-reversed",
            "CFG-PATCH-KEY-ORDER-SIDECAR",
            "The key-order sidecar is applied in reverse order.",
            edit_request_json(PATCH, reversed_sidecar),
        ),
        fault(
            "sidecar-inapplicable-ignored",
            "CFG-PATCH-SIDECAR-INAPPLICABLE-409",
            "A sidecar naming a pointer that is not an object is dropped instead of answering 409.",
            on_status(PATCH, 409, inapplicable_ignored),
        ),
        fault(
            "stale-base-accepted",
            "CFG-PATCH-409-STALE-BASE CFG-PATCH-CONCURRENT-ONE-WINS CFG-PATCH-409-NOTHING-CHANGES",
            "`baseHash` is ignored: a stale patch is accepted and concurrent writers all win "
            "(last writer wins).",
            edit_request_json(
                PATCH,
                lambda b: (
                    {k: v for k, v in b.items() if k != "baseHash"} if isinstance(b, dict) else b
                ),
            ),
        ),
        fault(
            "racy-base-compare",
            "CFG-PATCH-CONCURRENT-ONE-WINS",
            "The baseHash compare is not atomic with the write: a patch arriving while another one "
            "of the same configuration is in flight skips it.",
            racy_base,
        ),
        fault(
            "current-base-refused",
            "CFG-PATCH-CURRENT-BASE-ACCEPTED CFG-PATCH-CONCURRENT-ONE-WINS",
            "A patch naming a baseHash answers 409 STALE_BASE_HASH even when it is current.",
            answer(
                PATCH,
                lambda r: (
                    error_response(409, "STALE_BASE_HASH")
                    if isinstance(r.json(), dict) and "baseHash" in r.json()
                    else None
                ),
            ),
        ),
        fault(
            "inapplicable-answers-200",
            "CFG-PATCH-409-INAPPLICABLE CFG-PATCH-ATOMIC",
            "An inapplicable patch answers 200 with the unchanged record.",
            on_status(PATCH, 409, conflict_as_ok),
        ),
        fault(
            "conflict-half-applied",
            "CFG-PATCH-ATOMIC CFG-PATCH-409-NOTHING-CHANGES",
            "An inapplicable patch answers 409 but its longest applicable prefix is written.",
            half_applied,
        ),
        fault(
            "stale-conflict-written",
            "CFG-PATCH-409-NOTHING-CHANGES CFG-PATCH-CONCURRENT-ONE-WINS",
            "A stale-base patch answers 409 but is written all the same.",
            stale_written_anyway,
        ),
        fault(
            "malformed-patch-accepted",
            "CFG-PATCH-MALFORMED-REFUSED ERR-VALIDATION-STATUS",
            "A malformed patch body is taken as an empty patch (200).",
            on_status(PATCH, 400, malformed_as_noop),
        ),
        fault(
            "patch-reaches-other-project",
            "CFG-PATCH-OTHER-PROJECT-CONFIG",
            "A patch of another project's configuration under one's own project id is applied "
            "to it (the configuration id is looked up without its project).",
            lambda ctx: on_status(
                PATCH,
                404,
                lambda r, resp: (
                    with_path(r, r"/application/[^/]+/", "/application/2/")
                    .with_header("authorization", f"Bearer {ctx.foreign_pat}")
                    .with_header("environment_id", "3")
                    if "CONFIGURATION_NOT_FOUND" in resp.body.decode()
                    else resp
                ),
            ),
        ),
    )
