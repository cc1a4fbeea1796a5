"""Variants that keep, each in its own way, a statement of the snapshot no other variant kept
(docs/trace.md): the snapshot hash in another alphabet, snapshot lists in another order, extra
fields, other date-time spellings, cache headers on a 304, a bootstrap that reads no ``?hash=``, a
polling hint in fractions or lingering. Every choice is one the specification's words allow; each
``doc`` says which words. Those of the management API and its credentials are
``variants.management_statements``'s, listed right after these."""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Callable
from typing import Any

from dialect import timestamps
from faulty.asgi import Forward, Handler, Request, Response

from variants.rewrite import EXPERIMENTS, SDK, handler
from variants.variant import Variant

SNAPSHOTS = re.compile(r"/sdk/v2/(status|bootstrap)")

SNAPSHOT_SHAPE = frozenset({"SDK-STATUS-200-SNAPSHOT"})
SUMMARY = frozenset(
    {"EXP-SNAPSHOT-SUMMARY-FIELDS", "EXP-SNAPSHOT-GROUP-FIELDS", "EXP-SNAPSHOT-MATCHES-EXPERIMENT"}
)
CONDITIONAL = frozenset(
    {
        "SDK-STATUS-304-IF-NONE-MATCH",
        "SDK-STATUS-304-HASH-QUERY",
        "SDK-STATUS-200-ON-OTHER-HASH",
        "SDK-STATUS-IF-NONE-MATCH-FORMS",
        "SDK-STATUS-304-NO-BODY",
        "SDK-BOOTSTRAP-304",
    }
)


def _snapshot(edit: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[..., Response]:
    """A 200 snapshot of status or bootstrap (identity or not) edited by ``edit``."""

    def answer(request: Request, response: Response) -> Response:
        data = response.json()
        if response.status != 200 or not SNAPSHOTS.fullmatch(request.path):
            return response
        return response.with_json(edit(data)) if isinstance(data, dict) else response

    return answer


def _summaries(data: dict[str, Any], edit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Every experiment summary of a snapshot edited in place."""
    experiments = data.get("experiments")
    if not isinstance(experiments, dict):
        return
    for unit in ("user", "server"):
        entries = experiments.get(unit)
        if isinstance(entries, list):
            experiments[unit] = [edit(e) if isinstance(e, dict) else e for e in entries]


# ------------------------------------------------------------------ the snapshot hash


def _encoded(digest: str) -> str:
    """The reference's hex SHA-256 as unpadded base64url (43 characters, another alphabet)."""
    try:
        raw = bytes.fromhex(digest)
    except ValueError:
        return digest
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _decoded(tag: str) -> str:
    """A base64url hash back in the reference's hex; anything else never matches (an empty
    hash stays empty: spec 4.3 refuses it)."""
    if not tag:
        return tag
    try:
        raw = base64.urlsafe_b64decode(tag + "=" * (-len(tag) % 4))
    except (binascii.Error, ValueError):
        return "unmatched-" + tag
    if len(raw) != 32 or _encoded(raw.hex()) != tag:
        return "unmatched-" + tag
    return raw.hex()


def _entity_tags_decoded(value: str) -> str:
    """An If-None-Match list with each entity-tag's opaque part decoded (``*`` kept)."""
    out = []
    for part in value.split(","):
        tag = part.strip()
        weak = tag.startswith("W/")
        body = tag[2:] if weak else tag
        if body == "*":
            out.append(body)
            continue
        quoted = len(body) >= 2 and body[0] == body[-1] == '"'
        inner = _decoded(body[1:-1] if quoted else body)
        out.append(("W/" if weak else "") + (f'"{inner}"' if quoted else inner))
    return ", ".join(out)


def _hash_in(request: Request) -> Request:
    if not SNAPSHOTS.fullmatch(request.path):
        return request
    value = request.header("if-none-match")
    if value is not None:
        request = request.with_header("if-none-match", _entity_tags_decoded(value))
    sent = request.param("hash")
    if sent is not None:
        query = tuple((k, _decoded(v) if k == "hash" else v) for k, v in request.query)
        request = request.replace(query=query)
    return request


def _hash_out(request: Request, response: Response) -> Response:
    if not SNAPSHOTS.fullmatch(request.path):
        return response
    etag = response.headers.get("etag")
    if etag is not None:
        weak = etag.startswith("W/")
        inner = (etag[2:] if weak else etag).strip('"')
        response = response.with_header("etag", ("W/" if weak else "") + f'"{_encoded(inner)}"')
    data = response.json()
    if response.status == 200 and isinstance(data, dict) and isinstance(data.get("hash"), str):
        response = response.with_json({**data, "hash": _encoded(data["hash"])})
    return response


# ------------------------------------------------------------------ snapshot payloads


def _extra_fields(data: dict[str, Any]) -> dict[str, Any]:
    """Fields of its own, each derived from the content the hash covers."""

    def summary(entry: dict[str, Any]) -> dict[str, Any]:
        groups = entry.get("groups")
        if isinstance(groups, list):
            entry = {
                **entry,
                "groups": [
                    {**g, "isControl": g.get("ordinal") == 0} if isinstance(g, dict) else g
                    for g in groups
                ],
            }
        return {**entry, "groupCount": len(groups) if isinstance(groups, list) else 0}

    _summaries(data, summary)
    configurations = data.get("configurations")
    count = len(configurations) if isinstance(configurations, list) else 0
    return {**data, "configurationCount": count}


def _configurations_newest_first(data: dict[str, Any]) -> dict[str, Any]:
    if isinstance(data.get("configurations"), list):
        data["configurations"] = list(reversed(data["configurations"]))
    return data


def _primary_newest(data: dict[str, Any]) -> dict[str, Any]:
    ids = [
        c["id"]
        for c in data.get("configurations") or []
        if isinstance(c, dict) and isinstance(c.get("id"), int)
    ]
    if ids:
        data["primaryConfigurationId"] = max(ids)
    return data


def _experiments_newest_first(data: dict[str, Any]) -> dict[str, Any]:
    experiments = data.get("experiments")
    if isinstance(experiments, dict):
        for unit in ("user", "server"):
            if isinstance(experiments.get(unit), list):
                experiments[unit] = list(reversed(experiments[unit]))
    return data


def _groups_last_first(data: dict[str, Any]) -> dict[str, Any]:
    def summary(entry: dict[str, Any]) -> dict[str, Any]:
        groups = entry.get("groups")
        return {**entry, "groups": list(reversed(groups))} if isinstance(groups, list) else entry

    _summaries(data, summary)
    return data


def _required_descending(data: dict[str, Any]) -> dict[str, Any]:
    if isinstance(data.get("requiredProperties"), list):
        data["requiredProperties"] = sorted(data["requiredProperties"], reverse=True)
    return data


def _stamped(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: timestamps.to_dialect(v) if k in ("startsAt", "endsAt") else _stamped(v)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_stamped(v) for v in data]
    return data


def _unstamped(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: timestamps.to_reference(v) if k in ("startsAt", "endsAt") else _unstamped(v)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_unstamped(v) for v in data]
    return data


def _moments_in(request: Request) -> Request:
    data = request.json()
    if request.method != "POST" or not EXPERIMENTS.fullmatch(request.path) or data is None:
        return request
    return request.with_json(_unstamped(data))


def _moments_out(request: Request, response: Response) -> Response:
    data = response.json()
    if response.status >= 400 or data is None:
        return response
    if not (EXPERIMENTS.fullmatch(request.path) or SDK.fullmatch(request.path)):
        return response
    return response.with_json(_stamped(data))


# ------------------------------------------------------------------ conditional answers


def _cache_headers(request: Request, response: Response) -> Response:
    """Cache-Control on every snapshot answer, the 304 included (RFC 9110 15.4.5: a 304 sends
    what the 200 would have sent)."""
    if SNAPSHOTS.fullmatch(request.path) and response.status in (200, 304):
        return response.with_header("cache-control", "private, no-cache")
    return response


def _bootstrap_ignores_hash_query(request: Request) -> Request:
    return request.without_param("hash") if request.path == "/sdk/v2/bootstrap" else request


# ------------------------------------------------------------------ load shedding


def _fractional_hint(request: Request, response: Response) -> Response:
    data = response.json()
    if response.status != 200 or not isinstance(data, dict) or not SDK.fullmatch(request.path):
        return response
    hint = data.get("polling")
    if not isinstance(hint, dict) or not isinstance(hint.get("intervalSeconds"), int | float):
        return response
    interval = float(hint["intervalSeconds"]) + 0.5
    return response.with_json({**data, "polling": {**hint, "intervalSeconds": interval}})


LINGER_SECONDS = 1.0


def _lingering_hint() -> Handler:
    """The hint stays LINGER_SECONDS after the reference drops it (a cool-down)."""
    last: dict[str, Any] = {}

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        data = response.json()
        if response.status != 200 or not isinstance(data, dict) or not SDK.fullmatch(request.path):
            return response
        now = time.monotonic()
        if isinstance(data.get("polling"), dict):
            last["at"], last["hint"] = now, data["polling"]
            return response
        if "at" in last and now - last["at"] < LINGER_SECONDS:
            return response.with_json({**data, "polling": last["hint"]})
        return response

    return handle


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "snapshot-hash-base64url",
        "writes the snapshot hash (body, ETag, If-None-Match and ?hash=) as 43 characters of "
        "unpadded base64url, not 64 hex digits: spec 2.4 says 'hash: string'",
        SNAPSHOT_SHAPE
        | (CONDITIONAL - {"SDK-STATUS-304-NO-BODY"})
        | frozenset({"SDK-STATUS-ETAG-EQUALS-HASH", "SDK-BOOTSTRAP-HASH-EQUALS-STATUS"}),
        handler(rewrite=_hash_in, answer=_hash_out),
        watch=frozenset({"SDK-STATUS-200-SNAPSHOT", "SDK-BOOTSTRAP-304"}),
    ),
    Variant(
        "snapshot-extra-fields",
        "adds fields of its own to the snapshot (configurationCount), each summary (groupCount) "
        "and each group (isControl): spec 2.4 and 2.5 list fields without forbidding others",
        SNAPSHOT_SHAPE | SUMMARY,
        handler(answer=_snapshot(_extra_fields)),
        watch=frozenset({"SDK-STATUS-200-SNAPSHOT", "EXP-SNAPSHOT-SUMMARY-FIELDS"}),
    ),
    Variant(
        "configurations-newest-first",
        "lists the snapshot's configurations newest first: spec 2.4 gives an array, no order",
        SNAPSHOT_SHAPE
        | frozenset({"SDK-STATUS-PRIMARY-CONFIG", "SDK-STATUS-LISTS-CONFIGURATIONS"}),
        handler(answer=_snapshot(_configurations_newest_first)),
        watch=frozenset({"SDK-STATUS-200-SNAPSHOT", "SDK-BOOTSTRAP-MATCHES-STATUS"}),
    ),
    Variant(
        "primary-newest-configuration",
        "names the newest configuration primary: spec 2.4 says 'primaryConfigurationId: "
        "number', not which one",
        SNAPSHOT_SHAPE | frozenset({"SDK-STATUS-PRIMARY-CONFIG"}),
        handler(answer=_snapshot(_primary_newest)),
        watch=frozenset({"SDK-STATUS-200-SNAPSHOT", "SDK-BOOTSTRAP-MATCHES-STATUS"}),
    ),
    Variant(
        "experiments-newest-first",
        "lists each unit type's experiment summaries newest first: spec 2.4 gives arrays, no order",
        SUMMARY,
        handler(answer=_snapshot(_experiments_newest_first)),
        watch=frozenset({"EXP-SNAPSHOT-SUMMARY-FIELDS", "SDK-BOOTSTRAP-MATCHES-STATUS"}),
    ),
    Variant(
        "groups-last-ordinal-first",
        "lists a summary's groups from the last ordinal to the first (ids descending): spec 2.5 "
        "gives groups as an array with their ordinal, not in ordinal order",
        SUMMARY,
        handler(answer=_snapshot(_groups_last_first)),
        watch=frozenset({"EXP-SNAPSHOT-SUMMARY-FIELDS", "SDK-BOOTSTRAP-MATCHES-STATUS"}),
    ),
    Variant(
        "required-properties-descending",
        "lists the snapshot's requiredProperties in descending order: spec 2.4 says 'array of "
        "string', no order",
        SNAPSHOT_SHAPE,
        handler(answer=_snapshot(_required_descending)),
        watch=frozenset({"SDK-STATUS-200-SNAPSHOT", "EXP-SNAPSHOT-SUMMARY-FIELDS"}),
    ),
    Variant(
        "experiment-moments-offset",
        "writes startsAt and endsAt at +01:00 with microseconds (and reads them so): spec 2.5 "
        "says ISO 8601 date-time",
        SUMMARY,
        handler(rewrite=_moments_in, answer=_moments_out),
        watch=frozenset({"EXP-SNAPSHOT-SUMMARY-FIELDS", "EXP-CREATE"}),
    ),
    Variant(
        "snapshot-cache-control",
        "sends Cache-Control: private, no-cache with every snapshot, its 304 included (RFC 9110 "
        "15.4.5): spec 4.3 says the 304 has no body, nothing of its headers beyond the ETag",
        frozenset(
            {
                "SDK-STATUS-304-NO-BODY",
                "SDK-STATUS-304-IF-NONE-MATCH",
                "SDK-STATUS-304-HASH-QUERY",
                "SDK-BOOTSTRAP-304",
            }
        ),
        handler(answer=_cache_headers),
        watch=frozenset({"SDK-STATUS-304-NO-BODY", "SDK-BOOTSTRAP-304"}),
    ),
    Variant(
        "bootstrap-hash-query-unread",
        "reads no ?hash= on bootstrap (only If-None-Match gives its 304): spec 4.3 lists ?hash= "
        "as an input of status only",
        frozenset({"SDK-BOOTSTRAP-304"}),
        handler(rewrite=_bootstrap_ignores_hash_query),
        watch=frozenset({"SDK-BOOTSTRAP-304"}),
    ),
    Variant(
        "polling-interval-fractional",
        "gives polling.intervalSeconds with a fraction (30.5): spec 2.4 says 'number'",
        frozenset({"POLL-HINT-SHAPE", "POLL-HINT-VALUES-USABLE"}),
        handler(answer=_fractional_hint),
        watch=frozenset({"POLL-HINT-SHAPE"}),
    ),
    Variant(
        "polling-hint-cools-down",
        f"keeps the polling hint {LINGER_SECONDS:g} s after the load that caused it has gone "
        "(declared: settle_seconds 3): spec 2.4 says 'while the backend is shedding load', and "
        "the backend sheds until it has cooled down",
        frozenset({"POLL-HINT-GONE-AFTER-LOAD", "POLL-HINT-ABSENT-NORMALLY"}),
        _lingering_hint,
        declare={"load_shedding": {"settle_seconds": 3.0}},
        watch=frozenset({"POLL-HINT-GONE-AFTER-LOAD", "POLL-HINT-ABSENT-NORMALLY"}),
    ),
)
