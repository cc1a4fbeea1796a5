"""The *escapes* section of the catalogue: faults that try to hide behind "not measurable".

Every fault of the other sections is a defect the suite must see. An escape is a defect, or a plain
refusal to answer, dressed up so that the suite could file it under "could not measure" instead of
"failed": a 429 nobody provoked, a request held past the client's timeout, a reset connection, a
503, a hash that never holds still, a Retry-After longer than the suite waits, a load burst answered
too slowly to be a burst, a body the suite cannot judge, a violation followed by a timeout in the
same ``IndependentChecks`` block. A server controls its own latency and its own answers, so none of
them may be a way out: each escape declares the requirements it must *fail*.

``docs/faulty-servers.md`` ("Not-measurable paths") lists every code path of the suite that can
yield not-measurable with the escape that tries it; ``tests/faulty/test_escapes.py`` checks that
list against the code. Every escape's name starts with ``escape-``.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response, json_response
from faulty.context import Context
from faulty.escape_reach import (
    EXPERIMENT_SNAPSHOT_BREAKS,
    HIDDEN_BREAKS,
    HOLD_WITHOUT_APPLICATION,
    IDENTITY_BREAKS,
    LIST_JUDGES,
    LIST_READERS,
    RESTLESS_BREAKS,
    checkable,
)
from faulty.recipes import (
    CREATE,
    EXP_ASSIGNMENTS,
    EXP_LIST,
    EXP_MEMBERS,
    EXPERIMENTS,
    HOLD_PROFILE,
    MANAGEMENT,
    PATCH,
    SNAPSHOT,
    STATUS,
    Fault,
    answer,
    chain,
    code_renamed,
    edit_request,
    edit_response,
    either,
    error_code_of,
    fault,
    hash_map_fault,
    hold,
    id_stripped,
    no_rate_limit,
    ok,
    on_status,
    reset,
    sha,
    summaries,
    with_identity,
    without_identity,
)

ESCAPE_PREFIX = "escape-"
APPLICATION = either(MANAGEMENT, EXPERIMENTS)  # every /application/{id}/v2/... endpoint
INSTANCE_HEADER = "server-id"  # the instance id header of the profile the reference server writes
UNKNOWN_CONFIGURATION = "2000000017"  # the configuration id the error scenarios aim at
LOOP_CURSOR = "escape-loop"


# ------------------------------------------------------------------ answers owed, not given


def _rate_limited(request: Request) -> Response:
    return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")


def _stale_base(request: Request, response: Response) -> bool:
    return response.status == 409 and error_code_of(response) == "STALE_BASE_HASH"


def _missing_credentials(request: Request, response: Response) -> bool:
    return request.header("authorization") is None and response.status in (401, 403)


def _out_of_scope_503(request: Request, response: Response) -> Response:
    return json_response(503, {"errorCode": "UNAVAILABLE", "message": "try again later"})


def _hash_query(request: Request, response: Response) -> bool:
    return bool(request.param("hash"))


def _conditional_429(request: Request) -> Response | None:
    return _rate_limited(request) if request.header("if-none-match") is not None else None


# ------------------------------------------------------------------ values that never settle


def restless_hash(ctx: Context) -> Handler:
    """Every status 200 shows a new hash (and ETag) for the same content; a client sending back
    any hash it was shown for the current content still gets its 304."""
    counter = itertools.count()
    lock = threading.Lock()

    def disguise(real: str, request: Request, data: Any) -> str:
        with lock:
            turn = next(counter)
        return sha(f"{real}:{turn}")[: max(len(real), 16)]

    return hash_map_fault(STATUS, disguise)(ctx)


def hour_penalty(ctx: Context) -> Handler:
    """A named instance, once limited, stays limited for an hour and says so (Retry-After 3600),
    although the profile declares a bucket that refills in a fraction of a second."""
    blocked: dict[tuple[str, str], float] = {}
    penalty = 3600.0

    async def handler(request: Request, forward: Forward) -> Response:
        instance = request.header(INSTANCE_HEADER)
        if not STATUS(request) or not instance:
            return await forward(request)
        slot = (request.header("authorization") or "", instance)
        remaining = blocked.get(slot, 0.0) - time.monotonic()
        if remaining > 0:
            return _rate_limited(request).with_header("retry-after", str(int(remaining) + 1))
        response = await forward(request)
        if response.status == 429:
            blocked[slot] = time.monotonic() + penalty
            response = response.with_header("retry-after", str(int(penalty)))
        return response

    return handler


# ------------------------------------------------------------------ load answered slowly

SLOW_POLL_SECONDS = 0.2  # the reference profile's bucket refills 30 tokens a second: 6 a poll
SLOW_WINDOW_SECONDS = 3.0  # how long after a 429 status polls are answered slowly


def slow_after_limit() -> Handler:
    """For a few seconds after any 429, each status poll waits before it is served: long enough
    for a drained bucket to refill between two polls."""
    last_limit = [float("-inf")]

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        if time.monotonic() - last_limit[0] < SLOW_WINDOW_SECONDS:
            await asyncio.sleep(SLOW_POLL_SECONDS)
        response = await forward(request)
        if response.status == 429:
            last_limit[0] = time.monotonic()
        return response

    return handler


SHED_DELAY_SECONDS = 0.1  # per request while the reference app would shed: the burst crawls


async def shed_slowly(request: Request, forward: Forward) -> Response:
    """Under load the server never sends the polling hint; it answers slowly instead, so a burst
    offered closed-loop takes far longer than the load-shedding window."""
    response = await forward(request)
    if not SNAPSHOT(request):
        return response
    data = response.json()
    if isinstance(data, dict) and "polling" in data:
        del data["polling"]
        await asyncio.sleep(SHED_DELAY_SECONDS)
        return response.with_json(data)
    return response


BURST_POLLS = 5  # polls of one instance within a second after which the server slows down


def slow_bursts() -> Handler:
    """Status polls of one caller beyond ``BURST_POLLS`` a second wait ``SLOW_POLL_SECONDS``
    each before they are served: a burst sent one poll at a time arrives as a trickle."""
    recent: dict[tuple[str, str], list[float]] = {}
    lock = threading.Lock()

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        slot = (request.header("authorization") or "", request.header(INSTANCE_HEADER) or "")
        now = time.monotonic()
        with lock:
            times = [t for t in recent.get(slot, []) if now - t < 1.0] + [now]
            recent[slot] = times
        if len(times) > BURST_POLLS:
            await asyncio.sleep(SLOW_POLL_SECONDS)
        return await forward(request)

    return handler


def slow_shared_bucket(ctx: Context) -> Handler:
    """One bucket for every instance id (as ``rate-limit-one-bucket``), slow after a 429."""
    return chain(slow_after_limit(), edit_request(STATUS, id_stripped))


def slow_unlimited(ctx: Context) -> Handler:
    """No rate limit (as ``rate-limit-off``), and bursts answered slowly."""
    return chain(slow_bursts(), on_status(STATUS, 429, no_rate_limit))


# ------------------------------------------------------------------ bodies that cannot be judged

LISTS = either(EXP_LIST, EXP_MEMBERS, EXP_ASSIGNMENTS)


def _list_not_json(request: Request, response: Response) -> Response:
    if response.status != 200:
        return response
    return Response(200, {"content-type": "text/plain"}, b"items follow: " + response.body[:40])


async def looping_pages(request: Request, forward: Forward) -> Response:
    """Paged lists never end: the last page points back to the first."""
    if not LISTS(request):
        return await forward(request)
    looped = request.param("cursor") == LOOP_CURSOR
    if looped:
        request = request.without_param("cursor")
    response = await forward(request)
    data = response.json()
    if response.status == 200 and isinstance(data, dict) and not data.get("nextCursor"):
        data["nextCursor"] = LOOP_CURSOR
        return response.with_json(data)
    return response


# ------------------------------------------------------------------ a violation, then a timeout


def _code_renamed_then_held() -> Handler:
    """Error bodies name their code ``code`` (a violation ``IndependentChecks`` records), and the
    last error case of the same block, a patch of an unknown configuration, is held past the
    timeout."""

    def unknown_configuration(request: Request) -> bool:
        return PATCH(request) and request.path.rstrip("/").endswith("/" + UNKNOWN_CONFIGURATION)

    return chain(
        edit_response(lambda r: True, code_renamed),
        hold(unknown_configuration, lambda r, resp: resp.status == 404),
    )


# ------------------------------------------------------------------ experiment reads refused


def _unit_rate_limited(request: Request) -> Response | None:
    return _rate_limited(request) if with_identity(request) else None


def _unit_unavailable(request: Request) -> Response | None:
    if not with_identity(request):
        return None
    return error_response(503, "UNAVAILABLE").with_header("retry-after", "1")


def _running_experiments(request: Request, response: Response) -> bool:
    data = response.json()
    return response.status == 200 and isinstance(data, dict) and bool(summaries(data))


def _unavailable(request: Request, response: Response) -> Response:
    return error_response(503, "UNAVAILABLE").with_header("retry-after", "1")


def hidden_creations(ctx: Context) -> Handler:
    """Configurations created through the API never appear in a snapshot without identity (the
    provisioned ones do): the suite cannot find what it wrote."""
    created: set[Any] = set()
    lock = threading.Lock()

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        data = response.json()
        if CREATE(request) and ok(response) and isinstance(data, dict):
            with lock:
                created.add(data.get("id"))
        elif without_identity(request) and response.status == 200 and isinstance(data, dict):
            entries = data.get("configurations")
            if isinstance(entries, list):
                with lock:
                    data["configurations"] = [
                        e for e in entries if not isinstance(e, dict) or e.get("id") not in created
                    ]
                response = response.with_json(data)
        return response

    return handler


# ------------------------------------------------------------------ the section


def escapes() -> tuple[Fault, ...]:
    """The section's entries, in the order the selftest lists them."""
    everything_with_management = " ".join(sorted(checkable() - HOLD_WITHOUT_APPLICATION))
    return (
        fault(
            "escape-management-429",
            everything_with_management,
            "Every /application/... request (configurations and experiments) answers 429 with "
            "Retry-After: 1, whatever the pace: a rate limit the suite did not provoke. Breaks "
            "every requirement whose scenario needs a management answer.",
            answer(APPLICATION, _rate_limited),
        ),
        fault(
            "escape-stale-patch-held",
            "CFG-PATCH-409-STALE-BASE CFG-PATCH-409-NOTHING-CHANGES CFG-PATCH-CONCURRENT-ONE-WINS",
            "A patch on a stale base is refused (nothing written) but its 409 is held past the "
            "client's timeout: the one answer the spec obliges never arrives.",
            hold(PATCH, _stale_base),
            profile=HOLD_PROFILE,
        ),
        fault(
            "escape-missing-pat-reset",
            "AUTH-PAT-MISSING ERR-BODY-JSON ERR-BODY-SHAPE",
            "A create or patch without credentials is refused (nothing written), but the "
            "connection is reset instead of answering 401 (so no error body either: the error "
            "scenarios' missing-credentials case gets none).",
            reset(MANAGEMENT, _missing_credentials),
        ),
        fault(
            "escape-out-of-scope-503",
            "SDK-HDR-ENV-OUT-OF-SCOPE-403 ERR-STATUS-BODY-JSON ERR-BODY-SHAPE",
            "A status request naming an alias outside the key's scope answers 503 (with a JSON "
            "error body) instead of 403; the error scenarios send that case too.",
            on_status(STATUS, 403, _out_of_scope_503),
        ),
        fault(
            "escape-hash-query-held",
            "SDK-STATUS-304-HASH-QUERY SDK-STATUS-200-ON-OTHER-HASH SDK-STATUS-304-NO-BODY "
            "SDK-STATUS-304-ETAG ERR-NO-SERVER-ERROR",
            "A status request carrying ?hash= is answered only after the client's timeout (the "
            "304 scenarios and the malformed-query probes among them get no answer).",
            hold(STATUS, _hash_query),
            profile=HOLD_PROFILE,
        ),
        fault(
            "escape-conditional-429",
            "SDK-STATUS-304-IF-NONE-MATCH SDK-STATUS-304-ETAG SDK-STATUS-200-ON-OTHER-HASH "
            "SDK-STATUS-304-NO-BODY SDK-STATUS-IF-NONE-MATCH-FORMS ERR-NO-SERVER-ERROR",
            "A status request carrying If-None-Match answers 429 with Retry-After: 1, however "
            "slowly the client polls (far below the declared rate limit).",
            answer(STATUS, _conditional_429),
        ),
        fault(
            "escape-restless-snapshot",
            RESTLESS_BREAKS,
            "Every status read shows a new snapshot hash for the same content (a client sending "
            "back any hash shown for the current content still gets 304): the snapshot never "
            "holds still for two reads.",
            restless_hash,
        ),
        fault(
            "escape-retry-after-an-hour",
            "LIMIT-RATE-RECOVERS",
            "A limited instance stays limited for an hour and says Retry-After: 3600, although "
            "the profile declares a bucket that refills many tokens a second.",
            hour_penalty,
        ),
        fault(
            "escape-shed-slowly",
            "POLL-HINT-UNDER-LOAD",
            "Under load the server never sends the polling hint and answers each request "
            f"{SHED_DELAY_SECONDS} s late instead, so the burst overruns its window.",
            shed_slowly,
        ),
        fault(
            "escape-slow-shared-bucket",
            # a fresh instance id finds the bucket the drains before it spent
            "LIMIT-RATE-PER-INSTANCE LIMIT-RATE-WITHIN-BUDGET",
            "One rate-limit bucket for every instance id, and each status poll answered "
            "slowly enough that the drained bucket refills between two polls.",
            slow_shared_bucket,
        ),
        fault(
            "escape-slow-burst-unlimited",
            "LIMIT-RATE-ENFORCED LIMIT-RATE-SHARED-WITHOUT-ID",
            "No rate limit (a limited poll is served from a fresh bucket, so callers without an id "
            "share none either), and a caller's polls "
            f"beyond {BURST_POLLS} a second are answered {SLOW_POLL_SECONDS} s late: a burst "
            "offered one poll at a time never exceeds the declared budget.",
            slow_unlimited,
        ),
        fault(
            "escape-lists-not-json",
            LIST_JUDGES + " EXP-RESPONSE-CONTENT-TYPE-JSON",
            "The experiment list, member list and assignment list answer 200 text/plain with a "
            "body that is not JSON (the scenarios that read a list only as a step they need are "
            "blocked by it, one cause: not measurable, the verdict never green).",
            edit_response(LISTS, _list_not_json),
        ),
        fault(
            "escape-endless-pages",
            LIST_READERS,
            "Paged experiment lists never end: the last page's cursor leads back to the first.",
            looping_pages,
        ),
        fault(
            "escape-soft-violation-then-held",
            "ERR-BODY-SHAPE ERR-UNKNOWN-CONFIGURATION ERR-BODY-JSON ERR-NO-SERVER-ERROR",
            "Error bodies name their code `code` (not the declared field), and a patch of an "
            "unknown configuration is answered 404 only after the client's timeout: a recorded "
            "violation followed by a call that never returns, in one IndependentChecks block.",
            _code_renamed_then_held(),
            profile=HOLD_PROFILE,
        ),
        fault(
            "escape-identity-bootstrap-429",
            IDENTITY_BREAKS,
            "Every bootstrap with identity headers answers 429 with Retry-After: 1, however "
            "slowly it is asked: per-unit content is never served.",
            answer(with_identity, _unit_rate_limited),
        ),
        fault(
            "escape-identity-bootstrap-503",
            IDENTITY_BREAKS,
            "Every bootstrap with identity headers answers 503 with Retry-After: 1.",
            answer(with_identity, _unit_unavailable),
        ),
        fault(
            "escape-experiment-snapshot-503",
            EXPERIMENT_SNAPSHOT_BREAKS,
            "A status or bootstrap without identity answers 503 whenever its snapshot would "
            "list a running experiment.",
            edit_response(
                without_identity,
                lambda r, resp: _unavailable(r, resp) if _running_experiments(r, resp) else resp,
            ),
        ),
        fault(
            "escape-snapshot-hides-new-configurations",
            HIDDEN_BREAKS,
            "Configurations created through the API are left out of every status and bootstrap "
            "snapshot (the hash still moves); only the provisioned ones are listed.",
            hidden_creations,
        ),
    )
