"""Defects over the space of an SDK rule (names ``prop-``), entries of the *SDK* section.

Each one keeps the hand-picked examples right and breaks the rule elsewhere in its space: a
conditional status request matched loosely (a prefix of the hash, a hash current before the
last write, another environment's hash, any If-None-Match list), documents the bootstrap
serves with other JSON types or another member order than management stored, or content hashes
blind to a change of type or order.
"""

from __future__ import annotations

import json
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    CREATE,
    PATCH,
    STATUS,
    Fault,
    chain,
    each_config,
    edit_json,
    either,
    fault,
    sha,
    unquoted,
    without_identity,
)

DOCUMENT = "configuration"  # the bootstrap entry's document field (the reference profile's)
SHORTEST_PREFIX = 7  # like an abbreviated git hash


def _validator(request: Request) -> str | None:
    """The one hash a status request names: ``?hash=`` or a single If-None-Match tag."""
    given = request.param("hash")
    if given:
        return given
    header = request.header("if-none-match")
    if header is None or "," in header:
        return None
    return unquoted(header)


def _plain(request: Request) -> Request:
    return request.with_header("if-none-match", None).without_param("hash")


def _not_modified(current: Response) -> Response:
    return Response(304, {"etag": current.headers["etag"]}, b"")


async def _current(request: Request, forward: Forward) -> Response | None:
    """The 200 the request would get without a validator, or None when it is no 200."""
    response = await forward(_plain(request))
    return response if response.status == 200 and "etag" in response.headers else None


async def prefix_is_current(request: Request, forward: Forward) -> Response:
    """A validator that is a prefix of the current hash (7 characters or more) answers 304."""
    sent = _validator(request) if STATUS(request) else None
    if sent is None or len(sent) < SHORTEST_PREFIX:
        return await forward(request)
    current = await _current(request, forward)
    if current is not None and unquoted(current.headers["etag"]).startswith(sent):
        return _not_modified(current)
    return await forward(request)


def stale_is_current(ctx: Context) -> Handler:
    """Every hash once issued to a key and environment stays 'not modified' for it."""
    issued: dict[tuple[str, str], set[str]] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        slot = (request.header("authorization") or "", request.header("environment") or "")
        sent = _validator(request)
        if sent is not None and sent in issued.get(slot, set()):
            current = await _current(request, forward)
            if current is not None:
                return _not_modified(current)
        response = await forward(request)
        if "etag" in response.headers:
            issued.setdefault(slot, set()).add(unquoted(response.headers["etag"]))
        return response

    return handler


def any_environment_is_current(ctx: Context) -> Handler:
    """A validator equal to the current hash of any environment of the project answers 304."""

    async def handler(request: Request, forward: Forward) -> Response:
        sent = _validator(request) if STATUS(request) else None
        if sent is None:
            return await forward(request)
        for alias in ("development", "production"):
            other = await forward(
                _plain(request)
                .with_header("environment", alias)
                .with_header("authorization", ctx.all_key)
            )
            if other.status == 200 and unquoted(other.headers.get("etag", "")) == sent:
                current = await _current(request, forward)
                if current is not None:
                    return _not_modified(current)
        return await forward(request)

    return handler


async def any_list_is_current(request: Request, forward: Forward) -> Response:
    """An If-None-Match list answers 304 whatever tags it holds (read like ``*``)."""
    header = request.header("if-none-match") if STATUS(request) else None
    if header is None or "," not in header:
        return await forward(request)
    current = await _current(request, forward)
    return _not_modified(current) if current is not None else await forward(request)


def _true_is_one(value: Any) -> Any:
    if value is True:
        return 1
    if isinstance(value, dict):
        return {k: _true_is_one(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_true_is_one(v) for v in value]
    return value


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def _bootstrap_documents(edit: Any) -> Handler:
    def change(entry: dict[str, Any]) -> None:
        if DOCUMENT in entry:
            entry[DOCUMENT] = edit(entry[DOCUMENT])

    return edit_json(lambda r: BOOTSTRAP(r) and r.header("unit-id") is None, each_config(change))


def _loose(value: Any) -> Any:
    """``value`` as a loose canonical form: true is 1, false 0, 1.0 is 1, members sorted."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _loose(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_loose(v) for v in value]
    return value


def loose_content_hash(ctx: Context) -> Handler:
    """contentHash, and each configuration's hash in the snapshots, over the loose form."""
    loose: dict[Any, str] = {}

    def record(data: Any, request: Request) -> Any:
        digest = sha(json.dumps(_loose(data.get("configuration")), separators=(",", ":")))
        data["contentHash"] = loose[data.get("id")] = digest
        return data

    def entry(item: dict[str, Any]) -> None:
        if item.get("id") in loose:
            item["hash"] = loose[item["id"]]

    return chain(
        edit_json(either(CREATE, PATCH), record),
        edit_json(without_identity, each_config(entry)),
    )


def properties() -> tuple[Fault, ...]:
    """The entries, in the order the selftest lists them."""
    return (
        fault(
            "prop-prefix-is-current",
            "SDK-STATUS-200-ON-OTHER-HASH",
            "A status validator that is a prefix (7 characters or more) of the current hash "
            "answers 304, like an abbreviated hash.",
            prefix_is_current,
        ),
        fault(
            "prop-stale-hash-is-current",
            "SDK-STATUS-200-ON-OTHER-HASH",
            "Every hash a key was once shown for an environment answers 304 there, also after a "
            "write moved the snapshot on.",
            stale_is_current,
        ),
        fault(
            "prop-other-environment-hash-is-current",
            "SDK-STATUS-200-ON-OTHER-HASH",
            "A status validator equal to the current hash of any environment of the project "
            "answers 304 (hashes looked up across environments).",
            any_environment_is_current,
        ),
        fault(
            "prop-list-is-current",
            "SDK-STATUS-200-ON-OTHER-HASH",
            "An If-None-Match list answers 304 whatever tags it holds, the current one or not.",
            any_list_is_current,
        ),
        fault(
            "prop-served-true-is-one",
            "SDK-BOOTSTRAP-DOCUMENTS-CURRENT",
            "The bootstrap (without identity) serves `true` as `1` in the documents: equal under "
            "Python's ==, another JSON type.",
            _bootstrap_documents(_true_is_one),
        ),
        fault(
            "prop-served-keys-sorted",
            "SDK-BOOTSTRAP-DOCUMENTS-CURRENT",
            "The bootstrap (without identity) serves the documents with object members sorted "
            "by name (records keep the stored order): equal under Python's ==, another member "
            "order, which is content when the target declares key order.",
            _bootstrap_documents(_sorted_keys),
        ),
        fault(
            "prop-content-hash-loose",
            "CFG-CONTENT-HASH-TRACKS-CONTENT SDK-STATUS-CONFIG-HASH-MOVES",
            "contentHash and each configuration's snapshot hash are computed over a loose form "
            "of the content (true as 1, 1.0 as 1, members sorted): a patch that changes only a "
            "type or the member order keeps them.",
            loose_content_hash,
        ),
    )
