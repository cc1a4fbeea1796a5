"""The patch defects of the adversarial section: a faulty RFC 6902 engine, and a stale base merged.

``faulty_engine(step, trigger)`` emulates a server whose patch engine gets one rule of RFC 6902
(or RFC 6901) wrong: for a patch whose operations ``trigger`` selects, it reads the current
document (an empty patch, which writes nothing), applies the operations itself with ``step``
(the reference engine's ``_apply_one`` with one rule changed), and writes the result as one
whole-document ``replace``, keeping the request's ``baseHash`` and ``keyOrder`` (the sidecar
still applies after the operations, as in the reference). A request without ``baseHash`` is
written with the hash that was read, retried a few times, so that concurrent writers are not
lost by the emulation. Any other patch, and any patch the reference app would refuse before
looking at the operations (credentials, unknown ids, a malformed body), is the reference
server's own.

``stale_base_merged`` keeps a log of the patches written and rebases a stale ``baseHash`` when
every patch since that base touched other members (a three-way merge).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, json_response
from faulty.context import Context
from faulty.recipes import PATCH
from refserver import patching, pointer
from refserver.patching import Operation, PatchConflict, PatchShapeError

Step = Callable[[Any, Operation], Any]
Trigger = Callable[[list[dict[str, Any]]], bool]
ATTEMPTS = 4
MERGE_WAIT_SECONDS = 0.05  # a stale patch may be answered before the winner's write is logged


def reference_step(document: Any, operation: Operation) -> Any:
    return patching._apply_one(document, operation)


def raw_operations(request: Request) -> list[dict[str, Any]] | None:
    body = request.json()
    ops = body.get("operations") if isinstance(body, dict) else None
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        return None
    return ops


def apply_with(step: Step, document: Any, operations: list[Operation]) -> Any:
    result = patching.copy_json(document)
    for operation in operations:
        try:
            result = step(result, operation)
        except PatchConflict as exc:
            raise PatchConflict(f"{operation.describe()} cannot be applied: {exc}") from None
    return result


def faulty_engine(step: Step, trigger: Trigger) -> Handler:
    async def handler(request: Request, forward: Forward) -> Response:
        ops = raw_operations(request) if PATCH(request) else None
        if ops is None or not trigger(ops):
            return await forward(request)
        try:
            operations = patching.parse_operations(ops)
        except PatchShapeError:
            return await forward(request)  # the reference's 400
        body = dict(request.json())
        for _ in range(ATTEMPTS):
            current = await forward(request.with_json({}))
            record = current.json()
            if current.status != 200 or not isinstance(record, dict):
                return await forward(request)
            try:
                result = apply_with(step, record.get("configuration"), operations)
            except PatchConflict as exc:
                stale = "baseHash" in body and body["baseHash"] != record.get("contentHash")
                if stale:
                    return await forward(request)  # the reference's stale-base 409
                conflict = {"errorCode": "PATCH_NOT_APPLICABLE", "message": str(exc)}
                return json_response(409, conflict)
            write = {
                **body,
                "operations": [{"op": "replace", "path": "", "value": result}],
                "baseHash": body.get("baseHash", record.get("contentHash")),
            }
            answer = await forward(request.with_json(write))
            if "baseHash" in body or answer.status != 409 or b"STALE" not in answer.body:
                return answer
        return await forward(request)

    return handler


# ------------------------------------------------------------------ the rules got wrong


def _parent_of(document: Any, path: list[str]) -> Any:
    try:
        return pointer.resolve(document, path[:-1])
    except pointer.PointerResolutionError as exc:
        raise PatchConflict(str(exc)) from None


def copy_by_reference(document: Any, operation: Operation) -> Any:
    """``copy`` puts the source value itself at the target (no deep copy, as ``obj[k] =
    other[j]`` does in JavaScript): later operations of the same patch that change one copy
    change both."""
    if operation.op != "copy" or operation.source is None:
        return reference_step(document, operation)
    value = patching._value_at(document, operation.source)
    if not operation.path:
        return value
    parent, key = _parent_of(document, operation.path), operation.path[-1]
    if isinstance(parent, dict):
        parent[key] = value
        return document
    return patching._add(document, operation.path, value)


def replace_as_set(document: Any, operation: Operation) -> Any:
    """``replace`` of a missing object member creates it (``obj[key] = value``)."""
    if operation.op == "replace" and operation.path:
        parent = _parent_of(document, operation.path)
        if isinstance(parent, dict) and operation.path[-1] not in parent:
            parent[operation.path[-1]] = patching.copy_json(operation.value)
            return document
    return reference_step(document, operation)


def add_past_end_appends(document: Any, operation: Operation) -> Any:
    """``add`` at an array index past the end appends (``Array.prototype.splice`` clamps)."""
    if operation.op == "add" and operation.path:
        parent, key = _parent_of(document, operation.path), operation.path[-1]
        if isinstance(parent, list) and key.isascii() and key.isdigit() and int(key) > len(parent):
            parent.append(patching.copy_json(operation.value))
            return document
    return reference_step(document, operation)


def test_null_matches_missing(document: Any, operation: Operation) -> Any:
    """``test`` with the value null passes when the path names nothing (``undefined == null``)."""
    if operation.op == "test" and operation.value is None:
        try:
            pointer.resolve(document, operation.path)
        except pointer.PointerResolutionError:
            return document
    return reference_step(document, operation)


def test_loose_equality(document: Any, operation: Operation) -> Any:
    """``test`` compares with the language's ``==``: ``true == 1`` and ``false == 0`` hold."""
    if operation.op == "test":
        if patching._value_at(document, operation.path) != operation.value:
            raise PatchConflict("the tested value differs")
        return document
    return reference_step(document, operation)


def add_existing_moves(document: Any, operation: Operation) -> Any:
    """``add`` onto an existing object member removes it and appends the new value at the end."""
    if operation.op == "add" and operation.path:
        parent, key = _parent_of(document, operation.path), operation.path[-1]
        if isinstance(parent, dict) and key in parent:
            del parent[key]
            parent[key] = patching.copy_json(operation.value)
            return document
    return reference_step(document, operation)


def has_op(*names: str) -> Trigger:
    return lambda ops: any(op.get("op") in names for op in ops)


# ------------------------------------------------------------------ request rewrites


def unescape_wrong_order(text: str) -> str:
    """A pointer as a server that unescapes ``~0`` before ``~1`` reads it (RFC 6901 section 4
    asks for ``~1`` first), written back correctly for the reference engine: ``/~01`` names the
    member ``/`` instead of ``~1``."""
    if not text.startswith("/"):
        return text
    tokens = [t.replace("~0", "~").replace("~1", "/") for t in text[1:].split("/")]
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def pointers_unescaped_wrongly(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("operations"), list):
        body["operations"] = [
            {
                **op,
                **{
                    k: unescape_wrong_order(op[k])
                    for k in ("path", "from")
                    if isinstance(op.get(k), str)
                },
            }
            if isinstance(op, dict)
            else op
            for op in body["operations"]
        ]
    return body


def sidecar_pointers_literal(body: Any) -> Any:
    """The sidecar's pointers are split on ``/`` but never unescaped: ``/a~1b`` looks for a
    member literally named ``a~1b``."""
    if isinstance(body, dict) and isinstance(body.get("keyOrder"), dict):
        body["keyOrder"] = {
            (k.replace("~", "~0") if isinstance(k, str) else k): v
            for k, v in body["keyOrder"].items()
        }
    return body


# ------------------------------------------------------------------ a stale base merged


def _touched(ops: list[dict[str, Any]]) -> list[list[str]] | None:
    paths = []
    for op in ops:
        for member in ("path", "from"):
            text = op.get(member)
            if isinstance(text, str):
                try:
                    paths.append(pointer.parse(text))
                except pointer.PointerSyntaxError:
                    return None
    return paths


def _overlap(one: list[list[str]], other: list[list[str]]) -> bool:
    return any(a[: len(b)] == b or b[: len(a)] == a for a in one for b in other)


def stale_base_merged(ctx: Context) -> Handler:
    """Every successful patch is logged (hash before, hash after, pointers touched). A stale
    ``baseHash`` is rebased when every patch written since that base touched other members:
    the patch is written on the current content instead of answering 409."""
    history: dict[str, list[tuple[str, str, list[list[str]]]]] = {}

    def chain_since(path: str, base: str, current: str) -> list[list[str]] | None:
        touched: list[list[str]] = []
        entries = history.get(path, [])
        starts = [i for i, (before, _, _) in enumerate(entries) if before == base]
        if not starts:
            return None
        for _before, after, paths in entries[starts[-1] :]:
            touched += paths
            if after == current:
                return touched
        return None

    async def handler(request: Request, forward: Forward) -> Response:
        ops = raw_operations(request) if PATCH(request) else None
        if ops is None:
            return await forward(request)
        before = (await forward(request.with_json({}))).json()
        response = await forward(request)
        body, answered = request.json(), response.json()
        mine = _touched(ops)
        if response.status == 200 and isinstance(before, dict) and isinstance(answered, dict):
            if mine is not None and isinstance(body, dict) and "keyOrder" not in body:
                entry = (str(before.get("contentHash")), str(answered.get("contentHash")), mine)
            else:
                entry = (str(before.get("contentHash")), str(answered.get("contentHash")), [[]])
            history.setdefault(request.path, []).append(entry)
            return response
        stale = response.status == 409 and b"STALE_BASE_HASH" in response.body
        if not stale or mine is None or not isinstance(body, dict) or "keyOrder" in body:
            return response
        for _ in range(2):
            now = (await forward(request.with_json({}))).json()
            current = str(now.get("contentHash")) if isinstance(now, dict) else ""
            since = chain_since(request.path, str(body.get("baseHash")), current)
            if since is not None:
                if _overlap(mine, since):
                    return response
                merged = await forward(request.with_json({**body, "baseHash": current}))
                return merged if merged.status == 200 else response
            await asyncio.sleep(MERGE_WAIT_SECONDS)
        return response

    return handler
