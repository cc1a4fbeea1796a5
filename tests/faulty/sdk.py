"""The *SDK* section: defects of the status snapshot, the SDK request headers and the bootstrap.

Snapshots that carry too much or too little, conditional requests (``If-None-Match``, ``hash``)
answered wrongly, hashes and ETags that lie (differing from the body, unstable, frozen at their
first value, salted with a write counter, global across environments) or are no entity-tag, a
Content-Type that is no media-type, the environment header's aliases and key scope ignored,
numeric and instance-id headers bounded wrongly (those header entries are ``faulty.sdk_headers``'s),
and a bootstrap without identity that disagrees with the status.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from typing import Any

from faulty import sdk_headers, sdk_properties
from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    CREATE,
    PATCH,
    SNAPSHOT,
    STATUS,
    Fault,
    answer,
    chain,
    drop,
    each_config,
    edit_json,
    edit_request,
    edit_response,
    fault,
    hash_map_fault,
    ok,
    on_status,
    quoted,
    scope_ignored,
    sha,
    unquoted,
    without_identity,
)


def frozen_hash(ctx: Context) -> Handler:
    """The first snapshot hash seen per key and environment, shown for ever."""
    first: dict[tuple[str, str], str] = {}

    def disguise(real: str, request: Request, data: Any) -> str:
        slot = (request.header("authorization") or "", request.header("environment") or "")
        return first.setdefault(slot, real)

    mapped = hash_map_fault(without_identity, disguise)(ctx)

    async def handler(request: Request, forward: Forward) -> Response:
        slot = (request.header("authorization") or "", request.header("environment") or "")
        frozen = first.get(slot)
        if without_identity(request) and frozen is not None:
            sent = request.header("if-none-match") or ""
            tags = {unquoted(part) for part in sent.split(",") if part.strip()}
            if frozen in tags or request.param("hash") == frozen:
                # the client holds the frozen hash: it is "current" for ever
                return Response(304, {"etag": quoted(frozen)}, b"")
        return await mapped(request, forward)

    return handler


class Writes:
    """A counter of successful configuration writes, shared by the handlers of one fault."""

    def __init__(self) -> None:
        self.count = 0

    def counting(self) -> Handler:
        async def handler(request: Request, forward: Forward) -> Response:
            response = await forward(request)
            if (CREATE(request) or PATCH(request)) and ok(response):
                self.count += 1
            return response

        return handler


def env_leaky_hash(ctx: Context) -> Handler:
    writes = Writes()
    return chain(
        writes.counting(),
        hash_map_fault(without_identity, lambda real, r, d: sha(f"{real}:{writes.count}"))(ctx),
    )


def all_config_hashes_move(ctx: Context) -> Handler:
    writes = Writes()

    def edit(entry: dict[str, Any]) -> None:
        entry["hash"] = sha(f"{entry.get('hash')}:{writes.count}")

    return chain(writes.counting(), edit_json(SNAPSHOT, each_config(edit)))


def config_hash_frozen(ctx: Context) -> Handler:
    first: dict[Any, str] = {}

    def edit(entry: dict[str, Any]) -> None:
        entry["hash"] = first.setdefault(entry.get("id"), entry.get("hash", ""))

    return edit_json(SNAPSHOT, each_config(edit))


def unstable_hash(ctx: Context) -> Handler:
    counter = itertools.count()
    return hash_map_fault(
        without_identity, lambda real, r, d: real if next(counter) % 2 else sha("odd:" + real)
    )(ctx)


async def any_hash_is_current(request: Request, forward: Forward) -> Response:
    """Any validator is taken as current: 304 (with the current ETag), whatever it names."""
    if STATUS(request) and (request.header("if-none-match") or request.param("hash")):
        current = await forward(request.with_header("if-none-match", None).without_param("hash"))
        if current.status == 200 and "etag" in current.headers:
            return Response(304, {"etag": current.headers["etag"]}, b"")
        return current
    return await forward(request)


def _duplicate_first(data: Any, request: Request) -> Any:
    if data.get("configurations"):
        data["configurations"].append(copy.deepcopy(data["configurations"][-1]))
    return data


def _primary_unknown(data: Any, request: Request) -> Any:
    ids = [e.get("id") for e in data.get("configurations", []) if isinstance(e.get("id"), int)]
    data["primaryConfigurationId"] = (max(ids) if ids else 0) + 1000
    return data


def _production_leaks(ctx: Context) -> Handler:
    """Production snapshots also list the development configurations."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not (STATUS(request) and request.header("environment") == "production"):
            return response
        if response.status != 200:
            return response
        dev = await forward(
            request.with_header("environment", "development")
            .with_header("authorization", ctx.all_key)
            .with_header("if-none-match", None)
        )
        data, extra = response.json(), dev.json() or {}
        known = {e.get("id") for e in data.get("configurations", [])}
        data["configurations"] += [
            e for e in extra.get("configurations", []) if e.get("id") not in known
        ]
        return response.with_json(data)

    return handler


def _bootstrap_hash_own(ctx: Context) -> Handler:
    return hash_map_fault(
        lambda r: BOOTSTRAP(r) and r.header("unit-id") is None, lambda real, r, d: sha("b:" + real)
    )(ctx)


def _etag_disagrees(where: Callable[[Request], bool]) -> Handler:
    return edit_response(
        where,
        lambda r, resp: (
            resp.with_header("etag", quoted(sha("etag:" + unquoted(resp.headers["etag"]))))
            if resp.status == 200 and "etag" in resp.headers
            else resp
        ),
    )


def _etag_unquoted(request: Request, response: Response) -> Response:
    etag = response.headers.get("etag")
    return response if etag is None else response.with_header("etag", unquoted(etag))


# ------------------------------------------------------------------ the section


def sdk() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    return (
        # ------------------------------------------------------------ status snapshot
        fault(
            "status-lacks-required-properties",
            "SDK-STATUS-200-SNAPSHOT SDK-STATUS-200-ON-OTHER-HASH SDK-STATUS-MINIMAL-REQUEST "
            "AUTH-SDK-ENV-IN-SCOPE EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION "
            "SDK-BOOTSTRAP-MATCHES-STATUS",
            "Status snapshots lack `requiredProperties`.",
            edit_json(STATUS, drop("requiredProperties")),
        ),
        fault(
            "status-needs-instance-id",
            "SDK-STATUS-MINIMAL-REQUEST LIMIT-RATE-SHARED-WITHOUT-ID",
            "A status poll without an instance id is refused with 400.",
            answer(
                STATUS,
                lambda r: (
                    error_response(400, "INVALID_SERVER_ID")
                    if r.header("server-id") is None
                    else None
                ),
            ),
        ),
        fault(
            "status-etag-differs",
            "SDK-STATUS-ETAG-EQUALS-HASH",
            "The status ETag is not the body's hash.",
            _etag_disagrees(STATUS),
        ),
        fault(
            "status-etag-unquoted",
            "SDK-STATUS-ETAG-EQUALS-HASH SDK-STATUS-304-ETAG",
            "The status ETag (200 and 304) is the bare hash, without the double quotes that make "
            "an entity-tag (RFC 9110 section 8.8.3); its value is still the body's hash.",
            edit_response(STATUS, _etag_unquoted),
        ),
        fault(
            "status-content-type-not-media-type",
            "SDK-STATUS-200-SNAPSHOT",
            "A status 200 says `Content-Type: application/json; charset`: a parameter without "
            "`=value`, not a media-type (RFC 9110 sections 8.3.1 and 5.6.6).",
            edit_response(
                STATUS,
                lambda r, resp: (
                    resp.with_header("content-type", "application/json; charset")
                    if resp.status == 200
                    else resp
                ),
            ),
        ),
        fault(
            "status-carries-documents",
            "SDK-STATUS-NO-DOCUMENTS",
            "Status entries carry the configuration document.",
            edit_json(
                STATUS, each_config(lambda e: e.setdefault("configuration", {"leaked": True}))
            ),
        ),
        fault(
            "status-lists-twice",
            "SDK-STATUS-LISTS-CONFIGURATIONS SDK-BOOTSTRAP-MATCHES-STATUS",
            "Status lists the newest configuration twice.",
            edit_json(STATUS, _duplicate_first),
        ),
        fault(
            "status-primary-unknown",
            "SDK-STATUS-PRIMARY-CONFIG SDK-BOOTSTRAP-MATCHES-STATUS",
            "primaryConfigurationId names no listed configuration.",
            edit_json(STATUS, _primary_unknown),
        ),
        fault(
            "status-ignores-if-none-match",
            "SDK-STATUS-304-IF-NONE-MATCH SDK-STATUS-IF-NONE-MATCH-FORMS",
            "Status ignores If-None-Match (always 200).",
            edit_request(STATUS, lambda r: r.with_header("if-none-match", None)),
        ),
        fault(
            "status-ignores-hash-query",
            "SDK-STATUS-304-HASH-QUERY",
            "Status ignores ?hash= (always 200).",
            edit_request(STATUS, lambda r: r if r.param("hash") == "" else r.without_param("hash")),
        ),
        fault(
            "status-304-without-etag",
            "SDK-STATUS-304-ETAG",
            "A 304 carries no ETag.",
            edit_response(
                STATUS,
                lambda r, resp: resp.with_header("etag", None) if resp.status == 304 else resp,
            ),
        ),
        fault(
            "status-304-with-body",
            "SDK-STATUS-304-NO-BODY",
            "A 304 is followed by a body with its Content-Length (on the wire under httptools; an "
            "HTTP client reads the 304 as bodiless and the next answer on the connection breaks).",
            edit_response(
                STATUS,
                lambda r, resp: resp.replace(body=b"{}") if resp.status == 304 else resp,
            ),
        ),
        fault(
            "status-any-hash-is-current",
            "SDK-STATUS-200-ON-OTHER-HASH",
            "Any If-None-Match or ?hash= answers 304, current or not.",
            any_hash_is_current,
        ),
        fault(
            "status-weak-and-list-ignored",
            "SDK-STATUS-IF-NONE-MATCH-FORMS",
            "If-None-Match lists, `*` and weak tags never match (with a profile that requires "
            "them).",
            edit_request(
                STATUS,
                lambda r: (
                    r.with_header("if-none-match", None)
                    if any(c in (r.header("if-none-match") or "") for c in ",*W")
                    else r
                ),
            ),
            profile={"conditional": {"require_list_and_weak": True}},
        ),
        fault(
            "status-empty-hash-accepted",
            "SDK-STATUS-HASH-QUERY-EMPTY ERR-VALIDATION-STATUS",
            "An empty ?hash= is ignored instead of refused.",
            edit_request(STATUS, lambda r: r.without_param("hash") if r.param("hash") == "" else r),
        ),
        fault(
            "status-hash-unstable",
            "SDK-STATUS-HASH-STABLE SDK-STATUS-HASH-MOVES-ON-WRITE SDK-STATUS-HASH-ENV-ISOLATED "
            "SDK-STATUS-304-ETAG",
            "Every other status read shows another hash for the same content (so a 304 to `*` or "
            "a list may carry another tag than the hash just read).",
            unstable_hash,
        ),
        fault(
            "snapshot-hash-frozen",
            "SDK-STATUS-HASH-MOVES-ON-WRITE EXP-SNAPSHOT-HASH-MOVES-ON-CREATE "
            "EXP-SNAPSHOT-HASH-MOVES-ON-CHANGE EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE",
            "The snapshot hash stays put after a write (the first hash seen is shown for ever, "
            "and a client holding it gets 304).",
            frozen_hash,
        ),
        fault(
            "snapshot-hash-global",
            "SDK-STATUS-HASH-ENV-ISOLATED",
            "The snapshot hash also moves on writes to other environments.",
            env_leaky_hash,
        ),
        fault(
            "config-hash-frozen",
            "SDK-STATUS-CONFIG-HASH-MOVES",
            "A configuration's snapshot hash is the first one seen, for ever.",
            config_hash_frozen,
        ),
        fault(
            "config-hashes-all-move",
            "SDK-STATUS-CONFIG-HASH-OTHERS-STABLE",
            "Every configuration's hash moves on a change to any one.",
            all_config_hashes_move,
        ),
        fault(
            "production-lists-development",
            "SDK-STATUS-ENV-ISOLATION",
            "Production snapshots also list the development configurations.",
            _production_leaks,
        ),
        # ------------------------------------------------------------ SDK headers
        *sdk_headers.headers(),
        # ------------------------------------------------------------ bootstrap
        fault(
            "bootstrap-not-json",
            "SDK-BOOTSTRAP-200-SNAPSHOT",
            "A bootstrap 200 answers Content-Type text/plain.",
            edit_response(
                BOOTSTRAP,
                lambda r, resp: (
                    resp.with_header("content-type", "text/plain") if resp.status == 200 else resp
                ),
            ),
        ),
        fault(
            "bootstrap-aliases-differ",
            "SDK-BOOTSTRAP-MATCHES-STATUS",
            "Bootstrap entries carry upper-cased aliases, unlike status.",
            edit_json(
                BOOTSTRAP, each_config(lambda e: e.update(alias=str(e.get("alias")).upper()))
            ),
        ),
        fault(
            "bootstrap-own-hash",
            "SDK-BOOTSTRAP-HASH-EQUALS-STATUS",
            "Bootstrap has its own hash, not the status hash (ETag and 304 consistent with it).",
            _bootstrap_hash_own,
        ),
        fault(
            "bootstrap-etag-differs",
            "SDK-BOOTSTRAP-ETAG-EQUALS-HASH",
            "The bootstrap ETag is not the body's hash.",
            _etag_disagrees(without_identity),
        ),
        fault(
            "bootstrap-no-304",
            "SDK-BOOTSTRAP-304",
            "Bootstrap ignores If-None-Match and ?hash=.",
            edit_request(
                BOOTSTRAP, lambda r: r.with_header("if-none-match", None).without_param("hash")
            ),
        ),
        fault(
            "bootstrap-scope-ignored",
            "SDK-BOOTSTRAP-ENV-SCOPE-403",
            "Bootstrap ignores the key's environment scope.",
            lambda ctx: on_status(BOOTSTRAP, 403, scope_ignored(ctx)),
        ),
        # ------------------------------------------------------------ over a rule's space
        *sdk_properties.properties(),
    )
