"""The *load* section: defects that only show under a fleet, judged by the load stage.

A rate limit whose buckets are shared among many instance ids, a polling hint that never goes
away, a hint that comes only after a 5xx, a write some pollers never see, pollers without an id
limited per connection instead of sharing one bucket, and a target that misses an objective it
declares for itself (latency, 304 share, throughput: each fault declares its own in ``profile``).
Each entry declares the exact set of requirement ids ``conformance run --stage load`` fails on
it (``tests/faulty/test_load_faults.py`` runs them, ``conformance selftest --side load``; the
server side does not, these defects do not show one request at a time).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context
from faulty.recipes import STATUS, Fault, edit_request, fault, quoted, unquoted

SLOW_STATUS_S = 0.5  # status-slower-than-declared: added to every status poll
CAPACITY_RPS = 100  # status-under-declared-throughput: status polls served one at a time
# The objectives these faults miss, declared as a target would (each fault declares only its own;
# the reference server meets all of them: tests/faulty/test_load_faults.py).
DECLARED_LATENCY = {"load": {"latency_p99_ms": 400}}
DECLARED_NOT_MODIFIED = {"load": {"min_not_modified_share": 0.9, "write_interval_seconds": 10.0}}
DECLARED_THROUGHPUT = {"load": {"min_throughput": 150}}
SHARED_BUCKETS = 4  # bucket-shared-under-many-ids: every id lands in one of this many buckets
UNSEEN_SHARE = 5  # write-unseen-by-some: one instance id in this many is served a stale snapshot


def _slot(value: str, slots: int) -> int:
    return int(hashlib.sha256(value.encode()).hexdigest(), 16) % slots


def shared_under_many_ids(request: Request) -> Request:
    """Instance ids hashed into a few buckets: invisible with a handful of ids."""
    value = request.header("server-id")
    if not value:
        return request
    return request.with_header("server-id", f"bucket-{_slot(value, SHARED_BUCKETS)}")


def per_connection(request: Request) -> Request:
    """A poll without an instance id limited per client connection (address and port)."""
    if request.header("server-id"):
        return request
    client = request.scope.get("client") or ("?", 0)
    return request.with_header("server-id", f"conn-{client[0]}-{client[1]}")


def hint_never_goes(ctx: Context) -> Handler:
    """Once the hint has been served, every 200 status body carries it for ever."""
    seen: dict[str, Any] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not STATUS(request) or response.status != 200:
            return response
        data = response.json()
        if not isinstance(data, dict):
            return response
        if "polling" in data:
            seen.setdefault("hint", data["polling"])
            return response
        if "hint" in seen:
            data["polling"] = seen["hint"]
            return response.with_json(data)
        return response

    return handler


def hint_after_5xx(ctx: Context) -> Handler:
    """Sheds by failing: an instance's first answer under shedding is a 503, the hint after."""
    failed: set[str] = set()

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not STATUS(request) or response.status != 200:
            return response
        data = response.json()
        who = request.header("server-id") or "-"
        if isinstance(data, dict) and "polling" in data and who not in failed:
            failed.add(who)
            return error_response(503, "OVERLOADED")
        return response

    return handler


def write_unseen_by_some(ctx: Context) -> Handler:
    """One instance id in ``UNSEEN_SHARE`` is served the first snapshot for ever (the live hint
    still added): a write that some pollers never see."""
    frozen: dict[str, Any] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        who = request.header("server-id")
        if not STATUS(request) or response.status not in (200, 304):
            return response
        if response.status == 200 and "body" not in frozen:
            data = response.json()
            if isinstance(data, dict):
                data.pop("polling", None)
                frozen["body"] = data
        if not who or _slot(who, UNSEEN_SHARE) != 0 or "body" not in frozen:
            return response
        stale = dict(frozen["body"])
        tag = quoted(str(stale.get("hash", "")))
        sent = request.header("if-none-match") or ""
        if sent and unquoted(sent) == stale.get("hash"):
            return Response(304, {"etag": tag}, b"")
        live = response.json() if response.status == 200 else None
        if isinstance(live, dict) and "polling" in live:
            stale["polling"] = live["polling"]
        return Response(200, {"content-type": "application/json", "etag": tag}, b"").with_json(
            stale
        )

    return handler


async def slow_status(request: Request, forward: Forward) -> Response:
    """Every status poll answered ``SLOW_STATUS_S`` late (correct otherwise)."""
    if STATUS(request):
        await asyncio.sleep(SLOW_STATUS_S)
    return await forward(request)


def serial_status(ctx: Context) -> Handler:
    """Status polls served one at a time, each taking at least 1/``CAPACITY_RPS`` s."""
    state: dict[str, asyncio.Lock] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        lock = state.setdefault("lock", asyncio.Lock())
        async with lock:
            await asyncio.sleep(1 / CAPACITY_RPS)
            return await forward(request)

    return handler


def ignore_every_other_hash(ctx: Context) -> Handler:
    """Every other status poll is answered as if it sent no hash: a 200 for an unchanged
    snapshot (a cache that drops the conditional header half the time)."""
    turn = itertools.count()

    def edit(request: Request) -> Request:
        return request.with_header("if-none-match", None) if next(turn) % 2 else request

    return edit_request(STATUS, edit)


def load_faults() -> tuple[Fault, ...]:
    return (
        fault(
            "bucket-shared-under-many-ids",
            "LIMIT-RATE-WITHIN-BUDGET LIMIT-RATE-PER-INSTANCE",
            f"instance ids hashed into {SHARED_BUCKETS} rate-limit buckets: a handful of ids "
            "each get their own, a fleet's well-behaved instances are limited",
            edit_request(STATUS, shared_under_many_ids),
        ),
        fault(
            "anonymous-per-connection",
            "LIMIT-RATE-SHARED-WITHOUT-ID",
            "polls without an instance id are limited per client connection, not per address",
            edit_request(STATUS, per_connection),
        ),
        fault(
            "hint-never-goes",
            "POLL-HINT-GONE-AFTER-LOAD POLL-HINT-ABSENT-NORMALLY",
            "once load shedding has started, every 200 status body carries the hint for ever",
            hint_never_goes,
        ),
        fault(
            "hint-only-after-5xx",
            "ERR-NO-SERVER-ERROR",
            "sheds by failing: an instance's first poll under shedding gets a 503, the hint only "
            "after it",
            hint_after_5xx,
        ),
        fault(
            "write-unseen-by-some",
            "SDK-STATUS-HASH-MOVES-ON-WRITE SDK-STATUS-CONFIG-HASH-MOVES",
            f"one instance id in {UNSEEN_SHARE} is served the first snapshot for ever: writes "
            "some pollers never see",
            write_unseen_by_some,
        ),
        fault(
            "status-slower-than-declared",
            "POLL-DECLARED-LATENCY",
            f"every status poll answered {SLOW_STATUS_S * 1000:.0f} ms late, under a declared "
            "p99 of 400 ms",
            slow_status,
            profile=DECLARED_LATENCY,
        ),
        fault(
            "unchanged-answered-200",
            "POLL-DECLARED-NOT-MODIFIED-SHARE",
            "every other status poll answered 200 as if it sent no hash, under a declared 304 "
            "share of 90 %",
            ignore_every_other_hash,
            profile=DECLARED_NOT_MODIFIED,
        ),
        fault(
            "status-under-declared-throughput",
            "POLL-DECLARED-THROUGHPUT",
            f"status polls served one at a time, at most {CAPACITY_RPS}/s, under a declared 150/s",
            serial_status,
            profile=DECLARED_THROUGHPUT,
        ),
    )
