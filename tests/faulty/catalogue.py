"""The catalogue of one-defect servers: ``FAULTS``, each the reference server behind one defect.

Every entry names, as data (``breaks``), the exact set of requirement ids its defect breaks; its
``doc`` says what the defect is. The defects are ASGI handlers in front of the unmodified
reference app (``faulty.asgi``): they rewrite requests or responses, answer in the server's
place, or emulate an internal defect from outside with sub-requests (a stale base accepted by
dropping ``baseHash``, a half-applied patch by replaying a prefix of the operations). Faults
with memory (a frozen hash) build their state in ``make``, once per server.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response, json_response
from faulty.context import Context
from faulty.recipes import (
    BOOTSTRAP,
    CREATE,
    EXP_ASSIGN,
    EXP_ASSIGNMENTS,
    EXP_CATALOG,
    EXP_CONTEXT,
    EXP_COUNTS,
    EXP_CREATE,
    EXP_GET,
    EXP_GROUP_COUNTS,
    EXP_LIST,
    EXP_MEMBERS,
    EXP_REACTIVATE,
    EXP_ROLLOUT,
    EXP_ROLLOUT_GET,
    EXP_TERMINATE,
    EXP_UNENROLL,
    EXPERIMENTS,
    MANAGEMENT,
    PATCH,
    SDK,
    SNAPSHOT,
    STATUS,
    answer,
    chain,
    edit_json,
    edit_request,
    edit_request_json,
    edit_response,
    either,
    ok,
    on_status,
    quoted,
    sha,
    summaries,
    unquoted,
    with_identity,
    without_identity,
)

Make = Callable[[Context], Handler]
RACE_WINDOW_SECONDS = 0.2  # racy-base-compare: how long the first patch's window stays open


@dataclass(frozen=True)
class Fault:
    """One defect: its name, the requirement ids it breaks, what it does, and how to build it."""

    name: str
    breaks: frozenset[str]
    doc: str
    make: Make = field(repr=False)
    watch: frozenset[str] = frozenset()  # extra ids to run besides the broken ones' families
    profile: dict[str, Any] = field(default_factory=dict)  # merged into the target profile


def fault(
    name: str,
    breaks: str,
    doc: str,
    make: Make | Handler,
    watch: str = "",
    profile: dict[str, Any] | None = None,
) -> Fault:
    """A catalogue entry; ``make`` may be a plain handler when the fault keeps no state."""
    import inspect

    params = list(inspect.signature(make).parameters)
    builder: Make = make if params == ["ctx"] else (lambda ctx: make)  # type: ignore[assignment,return-value]
    return Fault(
        name, frozenset(breaks.split()), doc, builder, frozenset(watch.split()), profile or {}
    )


# ------------------------------------------------------------------ small JSON edits


def drop(*fields: str) -> Callable[[Any, Request], Any]:
    def edit(data: Any, request: Request) -> Any:
        for name in fields:
            data.pop(name, None)
        return data

    return edit


def set_field(name: str, value: Callable[[Any], Any]) -> Callable[[Any, Request], Any]:
    def edit(data: Any, request: Request) -> Any:
        data[name] = value(data)
        return data

    return edit


def each_config(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Any, Request], Any]:
    def apply(data: Any, request: Request) -> Any:
        for entry in data.get("configurations", []):
            edit(entry)
        return data

    return apply


def each_summary(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Any, Request], Any]:
    def apply(data: Any, request: Request) -> Any:
        for summary in summaries(data):
            edit(summary)
        return data

    return apply


def sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


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


def with_path(request: Request, pattern: str, replacement: str) -> Request:
    return request.replace(path=re.sub(pattern, replacement, request.path))


def sdk_error(request: Request) -> bool:
    return SDK(request)


def _year_earlier(value: Any) -> Any:
    match = re.match(r"(\d{4})(.*)", str(value))
    return f"{int(match[1]) - 1}{match[2]}" if match else value


def _lenient_project_id(request: Request) -> Request:
    return with_path(request, r"^/application/[^/]*[^/0-9][^/]*/", "/application/1/")


def not_iso(value: Any) -> Any:
    # "2026-11-22T04:00:00.000Z" -> "22/11/2026 04:00:00"
    match = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d:\d\d:\d\d)", str(value))
    return f"{match[3]}/{match[2]}/{match[1]} {match[4]}" if match else value


# ------------------------------------------------------------------ stateful fault builders


def hash_map_fault(
    where: Callable[[Request], bool], disguise: Callable[[str, Request, Any], str]
) -> Make:
    """Snapshot ``hash`` (and ETag) replaced by ``disguise(real)``; a validator holding a
    disguised hash is translated back, so 304s keep working with what the client was shown."""

    def make(ctx: Context) -> Handler:
        real_of: dict[str, str] = {}
        lock = threading.Lock()

        def translate(value: str) -> str:
            with lock:
                return real_of.get(unquoted(value), unquoted(value))

        async def handler(request: Request, forward: Forward) -> Response:
            if not where(request):
                return await forward(request)
            sent = unquoted(request.header("if-none-match") or "") or request.param("hash") or ""
            inm = request.header("if-none-match")
            if inm is not None:
                parts = [quoted(translate(p)) for p in inm.split(",") if p.strip()]
                request = request.with_header("if-none-match", ", ".join(parts) or inm)
            given = request.param("hash")
            if given:
                request = request.replace(
                    query=tuple((k, translate(v) if k == "hash" else v) for k, v in request.query)
                )
            response = await forward(request)
            data = response.json()
            real = (
                data.get("hash")
                if isinstance(data, dict) and isinstance(data.get("hash"), str)
                else (unquoted(response.headers["etag"]) if "etag" in response.headers else None)
            )
            if real is None:
                return response
            if response.status == 304 and real_of.get(sent) == real:
                shown = sent  # the client's validator is what it was shown: echo it
            else:
                shown = disguise(real, request, data)
            with lock:
                real_of[shown] = real
            if isinstance(data, dict) and "hash" in data:
                data["hash"] = shown
                response = response.with_json(data)
            if "etag" in response.headers:
                response = response.with_header("etag", quoted(shown))
            return response

        return handler

    return make


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


def content_hash_frozen(ctx: Context) -> Handler:
    """contentHash shown is per configuration id, constant. A server whose hash never moves
    finds every baseHash equal to it "current", so a baseHash equal to the frozen value is
    dropped: the patch applies unconditionally (deterministically, however writers overlap)."""

    async def handler(request: Request, forward: Forward) -> Response:
        if PATCH(request):
            body = request.json()
            config_id = request.path.rsplit("/", 1)[-1]
            if isinstance(body, dict) and body.get("baseHash") == sha(f"id:{config_id}"):
                del body["baseHash"]
                request = request.with_json(body)
        response = await forward(request)
        data = response.json()
        if (CREATE(request) or PATCH(request)) and ok(response) and isinstance(data, dict):
            data["contentHash"] = sha(f"id:{data.get('id')}")
            response = response.with_json(data)
        return response

    return handler


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


def reused_id(ctx: Context) -> Handler:
    first: list[Any] = []

    def edit(data: Any, request: Request) -> Any:
        if first:
            data["id"] = first[0]
        else:
            first.append(data.get("id"))
        return data

    return edit_json(CREATE, edit)


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


def sticky_polling(ctx: Context) -> Handler:
    until: list[float] = [0.0]

    def edit(data: Any, request: Request) -> Any:
        if "polling" in data:
            until[0] = time.monotonic() + 60
        elif time.monotonic() < until[0]:
            data["polling"] = {"intervalSeconds": 30, "jitterRatio": 0.2}
        return data

    return edit_json(SNAPSHOT, edit)


def strict_bucket(ctx: Context) -> Handler:
    """A bucket of 20 per key and instance id (refill 20/s) in front of the declared 60."""
    buckets: dict[tuple[str, str], tuple[float, float]] = {}

    def make(request: Request) -> Response | None:
        slot = (request.header("authorization") or "", request.header("server-id") or "ip")
        now = time.monotonic()
        tokens, last = buckets.get(slot, (20.0, now))
        tokens = min(20.0, tokens + (now - last) * 20)
        if tokens < 1:
            buckets[slot] = (tokens, now)
            return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")
        buckets[slot] = (tokens - 1, now)
        return None

    return answer(STATUS, make)


def long_penalty(ctx: Context) -> Handler:
    """Once limited, an instance stays limited for 30 s, whatever Retry-After says."""
    blocked: dict[tuple[str, str], float] = {}

    async def handler(request: Request, forward: Forward) -> Response:
        if not STATUS(request):
            return await forward(request)
        slot = (request.header("authorization") or "", request.header("server-id") or "ip")
        if time.monotonic() < blocked.get(slot, 0):
            return error_response(429, "RATE_LIMITED").with_header("retry-after", "1")
        response = await forward(request)
        if response.status == 429:
            blocked[slot] = time.monotonic() + 30
        return response

    return handler


def no_rate_limit(request: Request, response: Response) -> Request:
    return request.with_header("server-id", f"fresh-{random.random()}")


# ------------------------------------------------------------------ experiment helpers


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


def rollout_zero_ignored(ctx: Context) -> Handler:
    zero: set[str] = set()

    def rewrite(request: Request) -> Request:
        body = request.json()
        if isinstance(body, dict) and body.get("percentage") == 0:
            zero.add(request.path.split("/")[-2])
            body["percentage"] = 100
            return request.with_json(body)
        if isinstance(body, dict) and "percentage" in body:
            zero.discard(request.path.split("/")[-2])
        return request

    def shown(data: Any, request: Request) -> Any:
        ident = str(data.get("experimentId", data.get("id")))
        if ident in zero:
            if "percentage" in data:
                data["percentage"] = 0
            if isinstance(data.get("rollout"), dict):
                data["rollout"]["percentage"] = 0
        return data

    def snapshot(data: Any, request: Request) -> Any:
        for summary in summaries(data):
            if str(summary.get("id")) in zero and isinstance(summary.get("rollout"), dict):
                summary["rollout"]["percentage"] = 0
        return data

    return chain(
        edit_request(EXP_ROLLOUT, rewrite),
        edit_json(either(EXP_ROLLOUT, EXP_ROLLOUT_GET, EXP_GET), shown),
        edit_json(SNAPSHOT, snapshot),
    )


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


def base_content_for_units(ctx: Context) -> Handler:
    """With identity, each configuration document is the base one (no changeset merged)."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not with_identity(request) or response.status != 200:
            return response
        base = await forward(
            request.with_header("unit-id", None).with_header("if-none-match", None)
        )
        documents = {
            e.get("id"): e.get("configuration")
            for e in (base.json() or {}).get("configurations", [])
        }
        data = response.json()
        for entry in data.get("configurations", []):
            entry["configuration"] = documents.get(entry.get("id"), entry.get("configuration"))
        return response.with_json(data)

    return handler


def unenrolled_keeps_content(ctx: Context) -> Handler:
    """An unenrolled unit keeps getting the last per-unit answer it got while enrolled."""
    last: dict[str, Response] = {}
    unenrolled: set[str] = set()

    async def handler(request: Request, forward: Forward) -> Response:
        if EXP_UNENROLL(request) or EXP_REACTIVATE(request):
            response = await forward(request)
            unit = (request.json() or {}).get("unitId")
            if ok(response) and isinstance(unit, str):
                (unenrolled.add if EXP_UNENROLL(request) else unenrolled.discard)(unit)
            return response
        if with_identity(request):
            unit = request.header("unit-id") or ""
            if unit in unenrolled and unit in last:
                return last[unit]
            response = await forward(request.with_header("if-none-match", None))
            if response.status == 200:
                last[unit] = response
            return response
        return await forward(request)

    return handler


async def manual_on_probe(request: Request, forward: Forward) -> Response:
    """A manual assignment is validated and stored for a probe unit, not for the unit named."""
    body = request.json()
    if not EXP_ASSIGN(request) or not isinstance(body, dict) or "unitId" not in body:
        return await forward(request)
    unit = body["unitId"]
    response = await forward(request.with_json({**body, "unitId": f"{unit}~probe"}))
    data = response.json()
    if isinstance(data, dict) and data.get("unitId") == f"{unit}~probe":
        data["unitId"] = unit
        response = response.with_json(data)
    return response


def fake_ack(request: Request) -> Response | None:
    body = request.json() or {}
    return json_response(
        200,
        {
            "unitId": body.get("unitId"),
            "status": "active" if "reactivate" in request.path else "unenrolled",
        },
    )


def identity_etag_is_status(ctx: Context) -> Handler:
    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if with_identity(request) and response.status == 200:
            base = await forward(
                request.with_header("unit-id", None).with_header("if-none-match", None)
            )
            if "etag" in base.headers:
                return response.with_header("etag", base.headers["etag"])
        return response

    return handler


# ------------------------------------------------------------------ the catalogue

DEV_ENV = "1"


FAULTS: tuple[Fault, ...] = (
    # ------------------------------------------------------------ configuration create
    fault(
        "create-record-lacks-description",
        "CFG-CREATE-RECORD-SHAPE",
        "Create answers a record without `description`.",
        edit_json(CREATE, drop("description")),
    ),
    fault(
        "create-refuses-name-only",
        "CFG-CREATE-MINIMAL-BODY",
        "A create body holding only `name` is refused with 400.",
        answer(
            CREATE,
            lambda r: (
                error_response(400, "INVALID_REQUEST")
                if isinstance(r.json(), dict) and set(r.json()) == {"name"}
                else None
            ),
        ),
    ),
    fault(
        "create-name-optional",
        "CFG-CREATE-NAME-REQUIRED ERR-VALIDATION-400",
        "A create body without a string `name` gets a made-up name and is created.",
        edit_request_json(
            CREATE,
            lambda b: (
                {**b, "name": "unnamed"}
                if isinstance(b, dict) and not isinstance(b.get("name"), str)
                else b
            ),
        ),
    ),
    fault(
        "create-content-mangled",
        "CFG-CREATE-CONTENT-ROUNDTRIP SDK-BOOTSTRAP-DOCUMENTS-CURRENT",
        "Create answers the content with arrays reversed and null replaced by {}.",
        edit_json(
            CREATE,
            set_field(
                "configuration",
                lambda d: (
                    {}
                    if d.get("configuration") is None
                    else list(reversed(d["configuration"]))
                    if isinstance(d.get("configuration"), list)
                    else d.get("configuration")
                ),
            ),
        ),
    ),
    fault(
        "create-drops-comments",
        "CFG-CREATE-PRIVACY-AND-COMMENTS",
        "Create keeps no comments: the record's `comments` is always {}.",
        edit_json(CREATE, set_field("comments", lambda d: {})),
    ),
    fault(
        "create-drops-extra-properties",
        "CFG-CREATE-EXTRA-PROPERTIES",
        "Extra top-level properties of the create body are not returned.",
        edit_json(
            CREATE,
            lambda d, r: {
                k: v
                for k, v in d.items()
                if k not in (r.json() or {})
                or k in ("name", "alias", "description", "configuration", "privateKeys", "comments")
            },
        ),
    ),
    fault(
        "create-reuses-id",
        "CFG-CREATE-NEW-ID",
        "Every create after the first answers the first record's id.",
        reused_id,
    ),
    fault(
        "create-sorts-keys",
        "CFG-CREATE-KEY-ORDER-KEPT",
        "Create answers the content with object members sorted by name.",
        edit_json(
            CREATE, set_field("configuration", lambda d: sorted_keys(d.get("configuration")))
        ),
    ),
    fault(
        "record-wrong-project",
        "CFG-RECORD-IDS-MATCH-REQUEST",
        "Records name an environment id off by 100.",
        edit_json(
            either(CREATE, PATCH),
            set_field("environmentId", lambda d: (d.get("environmentId") or 0) + 100),
        ),
    ),
    fault(
        "record-timestamps-not-iso",
        "CFG-RECORD-TIMESTAMPS CFG-RECORD-UPDATED-AT-ADVANCES CFG-CREATE-RECORD-SHAPE "
        "CFG-PATCH-RECORD-SHAPE",
        "Record timestamps are written DD/MM/YYYY hh:mm:ss.",
        edit_json(
            either(CREATE, PATCH),
            lambda d, r: {
                **d,
                "createdAt": not_iso(d.get("createdAt")),
                "updatedAt": not_iso(d.get("updatedAt")),
            },
        ),
    ),
    fault(
        "record-marked-deleted",
        "CFG-RECORD-DELETED-AT-LIVE",
        "Live records carry `deletedAt` equal to `createdAt`.",
        edit_json(either(CREATE, PATCH), set_field("deletedAt", lambda d: d.get("createdAt"))),
    ),
    fault(
        "patch-updated-at-backwards",
        "CFG-RECORD-UPDATED-AT-ADVANCES",
        "Patch answers `updatedAt` a year before `createdAt`.",
        edit_json(PATCH, set_field("updatedAt", lambda d: _year_earlier(d.get("createdAt")))),
    ),
    fault(
        "content-hash-ignores-content",
        "CFG-CONTENT-HASH-TRACKS-CONTENT CFG-PATCH-409-STALE-BASE CFG-PATCH-409-NOTHING-CHANGES "
        "CFG-PATCH-CONCURRENT-ONE-WINS",
        "contentHash is a function of the configuration id only, so it never moves and a "
        "stale base can no longer be told from the current one (concurrent writers all win).",
        content_hash_frozen,
    ),
    fault(
        "empty-patch-moves-hash",
        "CFG-CONTENT-HASH-STABLE",
        "An empty patch answers a new contentHash (as if it had written something).",
        edit_json(
            PATCH,
            lambda d, r: (
                {**d, "contentHash": sha("x" + str(d.get("contentHash")))} if r.json() == {} else d
            ),
        ),
    ),
    fault(
        "empty-patch-refused",
        "CFG-PATCH-EMPTY-BODY",
        "An empty patch body is refused with 400.",
        answer(PATCH, lambda r: error_response(400, "INVALID_PATCH") if r.json() == {} else None),
    ),
    fault(
        "management-not-json",
        "CFG-RESPONSE-CONTENT-TYPE-JSON",
        "A successful create answers Content-Type text/plain.",
        edit_response(
            CREATE,
            lambda r, resp: resp.with_header("content-type", "text/plain") if ok(resp) else resp,
        ),
    ),
    fault(
        "environment-id-optional",
        "CFG-ENV-ID-REQUIRED ERR-VALIDATION-400",
        "A missing or non-numeric environment_id means environment 1.",
        edit_request(
            MANAGEMENT,
            lambda r: (
                r
                if (r.header("environment_id") or "").isdigit()
                else r.with_header("environment_id", DEV_ENV)
            ),
        ),
    ),
    fault(
        "environment-id-any-project",
        "CFG-ENV-ID-UNKNOWN",
        "An environment_id of another project is taken as environment 1.",
        edit_request(
            MANAGEMENT,
            lambda r: (
                r
                if r.header("environment_id") in ("1", "2")
                or not (r.header("environment_id") or "").isdigit()
                else r.with_header("environment_id", DEV_ENV)
            ),
        ),
    ),
    fault(
        "path-ids-lenient",
        "CFG-PATH-IDS-NUMERIC",
        "A non-numeric project id in the path is taken as project 1.",
        edit_request(MANAGEMENT, _lenient_project_id),
    ),
    # ------------------------------------------------------------ configuration patch
    fault(
        "patch-record-lacks-comments",
        "CFG-PATCH-RECORD-SHAPE",
        "Patch answers a record without `comments`.",
        edit_json(PATCH, drop("comments")),
    ),
    fault(
        "patch-ignores-remove",
        "CFG-PATCH-OPS-ADD-REMOVE-REPLACE CFG-PATCH-409-INAPPLICABLE CFG-PATCH-409-NOTHING-CHANGES "
        "CFG-PATCH-KEY-ORDER-KEPT CFG-PATCH-OPS-ARRAYS CFG-PATCH-ATOMIC",
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
        "CFG-PATCH-OPS-ARRAYS",
        "The array end marker `-` inserts at the front instead of appending.",
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
        "CFG-PATCH-KEY-ORDER-KEPT",
        "`replace` of an object member removes and re-adds it, moving it to the end.",
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
            lambda b: {k: v for k, v in b.items() if k != "baseHash"} if isinstance(b, dict) else b,
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
        "CFG-PATCH-MALFORMED-REFUSED ERR-VALIDATION-400",
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


def _strip_param(name: str) -> Callable[[Request], Request]:
    return lambda r: r.without_param(name)


async def any_hash_is_current(request: Request, forward: Forward) -> Response:
    """Any validator is taken as current: 304 (with the current ETag), whatever it names."""
    if STATUS(request) and (request.header("if-none-match") or request.param("hash")):
        current = await forward(request.with_header("if-none-match", None).without_param("hash"))
        if current.status == 200 and "etag" in current.headers:
            return Response(304, {"etag": current.headers["etag"]}, b"")
        return current
    return await forward(request)


def _numeric_limit(limit: int) -> Callable[[Request], Response | None]:
    def make(request: Request) -> Response | None:
        value = request.header("project-id")
        if value is not None and value.isdigit() and int(value) > limit:
            return error_response(400, "INVALID_PROJECT_ID")
        return None

    return make


def _numeric_out_of_bounds_dropped(request: Request) -> Request:
    value = request.header("project-id")
    if value is not None and (not value.isdigit() or not 0 < int(value) <= 2**53 - 1):
        return request.with_header("project-id", None)
    return request


def _instance_id_limit(request: Request) -> Response | None:
    value = request.header("server-id")
    if value is not None and len(value) > 64:
        return error_response(400, "INVALID_SERVER_ID")
    return None


def _instance_id_truncated(request: Request) -> Request:
    value = request.header("server-id")
    return request.with_header("server-id", value[:128]) if value else request


def _alias(mapping: dict[str | None, str | None]) -> Callable[[Request], Request]:
    def edit(request: Request) -> Request:
        alias = request.header("environment")
        return request.with_header("environment", mapping[alias]) if alias in mapping else request

    return edit


def _unknown_alias_is_development(request: Request) -> Request:
    alias = request.header("environment")
    if alias is not None and alias not in ("production", "development", "studio"):
        return request.with_header("environment", "development")
    return request


def _scope_ignored(ctx: Context) -> Callable[[Request, Response], Request | Response]:
    return lambda r, resp: r.with_header("authorization", ctx.all_key) if SDK(r) else resp


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


def _legacy_snapshot_differs(ctx: Context) -> Handler:
    return hash_map_fault(
        lambda r: SNAPSHOT(r) and r.header("authorization") == ctx.legacy_key,
        lambda real, r, d: sha("legacy:" + real),
    )(ctx)


SDK_FAULTS: tuple[Fault, ...] = (
    # ------------------------------------------------------------ status snapshot
    fault(
        "status-lacks-required-properties",
        "SDK-STATUS-200-SNAPSHOT SDK-STATUS-200-ON-OTHER-HASH SDK-STATUS-MINIMAL-REQUEST "
        "AUTH-SDK-ENV-IN-SCOPE EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION SDK-BOOTSTRAP-MATCHES-STATUS",
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
                error_response(400, "INVALID_SERVER_ID") if r.header("server-id") is None else None
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
        "status-carries-documents",
        "SDK-STATUS-NO-DOCUMENTS",
        "Status entries carry the configuration document.",
        edit_json(STATUS, each_config(lambda e: e.setdefault("configuration", {"leaked": True}))),
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
            STATUS, lambda r, resp: resp.with_header("etag", None) if resp.status == 304 else resp
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
        "If-None-Match lists, `*` and weak tags never match (with a profile that requires them).",
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
        "SDK-STATUS-HASH-QUERY-EMPTY ERR-VALIDATION-400",
        "An empty ?hash= is ignored instead of refused.",
        edit_request(STATUS, lambda r: r.without_param("hash") if r.param("hash") == "" else r),
    ),
    fault(
        "status-hash-unstable",
        "SDK-STATUS-HASH-STABLE SDK-STATUS-HASH-MOVES-ON-WRITE SDK-STATUS-HASH-ENV-ISOLATED",
        "Every other status read shows another hash for the same content.",
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
    fault(
        "alias-default-production",
        "SDK-HDR-ENV-DEFAULT-DEVELOPMENT",
        "A missing environment alias defaults to production.",
        edit_request(SDK, _alias({None: "production"})),
    ),
    fault(
        "production-alias-ignored",
        "SDK-HDR-ENV-PRODUCTION SDK-HDR-ENV-OUT-OF-SCOPE-403",
        "The production alias selects development.",
        edit_request(SDK, _alias({"production": "development"})),
    ),
    fault(
        "studio-refused",
        "SDK-HDR-ENV-STUDIO-SYNONYM SDK-HDR-ENV-OUT-OF-SCOPE-403",
        "`studio` is not accepted (400).",
        answer(
            SDK,
            lambda r: (
                error_response(400, "INVALID_ENVIRONMENT")
                if r.header("environment") == "studio"
                else None
            ),
        ),
    ),
    fault(
        "unknown-alias-is-development",
        "SDK-HDR-ENV-UNKNOWN-VALUE",
        "An empty or unknown alias is served as development.",
        edit_request(SDK, _unknown_alias_is_development),
    ),
    fault(
        "status-scope-ignored",
        "SDK-HDR-ENV-OUT-OF-SCOPE-403",
        "Status ignores the key's environment scope.",
        lambda ctx: on_status(STATUS, 403, _scope_ignored(ctx)),
    ),
    fault(
        "numeric-header-int32",
        "SDK-HDR-NUMERIC-IN-BOUNDS",
        "The numeric header refuses values above 2^31-1.",
        answer(SDK, _numeric_limit(2**31 - 1)),
    ),
    fault(
        "numeric-header-zero-accepted",
        "SDK-HDR-NUMERIC-OUT-OF-BOUNDS",
        "A numeric header of 0 (or out of bounds) is ignored instead of refused.",
        edit_request(SDK, _numeric_out_of_bounds_dropped),
    ),
    fault(
        "instance-id-max-64",
        "SDK-HDR-INSTANCE-ID-LENGTH",
        "Instance ids longer than 64 characters are refused.",
        answer(SDK, _instance_id_limit),
    ),
    fault(
        "instance-id-129-accepted",
        "SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS",
        "A 129-character instance id is accepted (cut to 128).",
        edit_request(SDK, _instance_id_truncated),
    ),
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
        edit_json(BOOTSTRAP, each_config(lambda e: e.update(alias=str(e.get("alias")).upper()))),
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
        lambda ctx: on_status(BOOTSTRAP, 403, _scope_ignored(ctx)),
    ),
)


def terminated_still_evaluated(ctx: Context) -> Handler:
    """A unit keeps getting its last per-unit answer while the experiment in it is terminated."""
    last: dict[tuple[str, str], Response] = {}
    terminated: set[str] = set()

    def mentions(response: Response) -> set[str]:
        data = response.json() or {}
        return {str(a.get("experimentId")) for a in data.get("assignments", []) or []}

    async def handler(request: Request, forward: Forward) -> Response:
        if EXP_TERMINATE(request):
            response = await forward(request)
            if ok(response):
                terminated.add(request.path.split("/")[-2])
            return response
        if not with_identity(request):
            return await forward(request)
        slot = (request.header("unit-id") or "", request.header("authorization") or "")
        cached = last.get(slot)
        if cached is not None and mentions(cached) & terminated:
            return cached
        response = await forward(request.with_header("if-none-match", None))
        if response.status == 200:
            last[slot] = response
        return response

    return handler


def _unit_type_ignored(request: Request) -> Request:
    return request.with_header("unit-type", None)


def _untouched_configs_changed(data: Any, request: Request) -> Any:
    touched = {a.get("configurationId") for a in data.get("assignments", []) or []}
    for entry in data.get("configurations", []):
        if entry.get("id") not in touched and isinstance(entry.get("configuration"), dict):
            entry["configuration"]["unit"] = request.header("unit-id")
    return data


def _create_refuses(field_name: str, value: str) -> Callable[[Request], Response | None]:
    def make(request: Request) -> Response | None:
        body = request.json()
        if isinstance(body, dict) and body.get(field_name) == value:
            return error_response(400, "INVALID_EXPERIMENT")
        return None

    return make


def _create_name_default(body: Any) -> Any:
    if isinstance(body, dict) and not isinstance(body.get("name"), str):
        body["name"] = "unnamed"
    return body


def _weights_normalised(body: Any) -> Any:
    groups = body.get("groups") if isinstance(body, dict) else None
    if body.get("assignmentMode", "weightedHash") != "weightedHash" or not isinstance(groups, list):
        return body
    weights: list[Any] = [g.get("weight") for g in groups if isinstance(g, dict)]
    if groups and all(isinstance(w, int) for w in weights) and sum(weights) != 10000:
        groups[-1]["weight"] = 10000 - sum(weights[:-1])
    return body


def _groups_truncated(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("groups"), list) and len(body["groups"]) > 8:
        body["groups"] = body["groups"][:8]
        body["groups"][-1]["weight"] = None
        fixed = [g.get("weight") for g in body["groups"][:-1]]
        if all(isinstance(w, int) for w in fixed):
            body["groups"][-1]["weight"] = 10000 - sum(fixed)
    return body


def base_config_any(ctx: Context) -> Handler:
    """An unknown baseConfigurationId is replaced by the last configuration created."""
    created: list[Any] = []

    def learn(data: Any, request: Request) -> Any:
        created.append(data.get("id"))
        return data

    def fix(request: Request) -> Response | Request:
        return request

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        body = request.json()
        if (
            (
                EXP_CREATE(request)
                and response.status in (400, 404)
                and created
                and "baseConfiguration" in response.body.decode() + json.dumps(body)
            )
            and isinstance(body, dict)
            and isinstance(body.get("baseConfigurationId"), int)
            and body.get("baseConfigurationId") not in created
        ):
            body["baseConfigurationId"] = created[-1]
            return await forward(request.with_json(body))
        return response

    return chain(edit_json(CREATE, learn), handler)


def _drop_last_item(data: Any, request: Request) -> Any:
    items = data.get("items")
    if isinstance(items, list) and items:
        items.pop(0 if request.param("cursor") is None else -1)
    return data


def _no_items(data: Any, request: Request) -> Any:
    data["items"] = []
    return data


def _active_plus_one(data: Any, request: Request) -> Any:
    for group in data.get("groups", []):
        if isinstance(group.get("active"), int):
            group["active"] += 1
    return data


def _totals_plus_one(data: Any, request: Request) -> Any:
    for item in data.get("items", []):
        for name in ("active", "total"):
            if isinstance(item.get(name), int):
                item[name] += 1
    return data


def _rollout_as_fraction(data: Any, request: Request) -> Any:
    if isinstance(data.get("percentage"), (int, float)):
        data["percentage"] = data["percentage"] / 100
    return data


def rollout_not_kept(ctx: Context) -> Handler:
    """A rollout change answers as if applied, but nothing is stored."""

    async def handler(request: Request, forward: Forward) -> Response:
        if not EXP_ROLLOUT(request):
            return await forward(request)
        body = request.json()
        current = await forward(request.replace(method="GET", body=b""))
        data = current.json()
        if current.status != 200 or not isinstance(body, dict) or not isinstance(data, dict):
            return await forward(request)
        shown = copy.deepcopy(data)
        if isinstance(body.get("percentage"), (int, float)) and 0 <= body["percentage"] <= 100:
            shown["percentage"] = body["percentage"]
        elif "percentage" in body:
            return await forward(request)
        weights = body.get("weights")
        if isinstance(weights, dict):
            return await forward(request)
        return current.with_json(shown)

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


def _percentage_clamped(body: Any) -> Any:
    if isinstance(body, dict) and isinstance(body.get("percentage"), (int, float)):
        body["percentage"] = min(100, max(0, body["percentage"]))
    return body


def _invalid_transition_ok(request: Request, response: Response) -> Request | Response:
    if "INVALID_TRANSITION" in response.body.decode():
        return json_response(200, {"status": "terminated"})
    return response


def _server_under_user(data: Any, request: Request) -> Any:
    experiments = data.get("experiments")
    if isinstance(experiments, dict):
        experiments["user"] = experiments.get("user", []) + experiments.get("server", [])
        experiments["server"] = []
    return data


def _foreign_project_rewritten(request: Request) -> Request:
    request = with_path(request, r"^/application/2/", "/application/1/")
    return (
        request.with_header("environment_id", "1")
        if request.header("environment_id") == "3"
        else request
    )


EXPERIMENT_FAULTS: tuple[Fault, ...] = (
    # ------------------------------------------------------------ bootstrap with identity
    fault(
        "no-identity-evaluates",
        "SDK-BOOTSTRAP-NO-IDENTITY-BASE SDK-BOOTSTRAP-HASH-EQUALS-STATUS",
        "A bootstrap without identity evaluates experiments for an anonymous unit.",
        edit_request(
            lambda r: BOOTSTRAP(r) and r.header("unit-id") is None,
            lambda r: r.with_header("unit-id", "anonymous"),
        ),
    ),
    fault(
        "changeset-not-merged",
        "SDK-BOOTSTRAP-ID-MERGE EXP-MANUAL-ASSIGNMENT-CONTENT SDK-BOOTSTRAP-ID-ONLY-ACTIVE "
        "EXP-UNENROLL-BASE-CONTENT",
        "With identity, the unit's changesets are not merged: documents are the base ones.",
        base_content_for_units,
    ),
    fault(
        "assignments-renamed",
        "SDK-BOOTSTRAP-ID-METADATA",
        "Per-unit bootstrap names its assignments under `experiments` instead.",
        edit_json(
            with_identity,
            lambda d, r: {
                **{k: v for k, v in d.items() if k != "assignments"},
                "experimentAssignments": d.get("assignments"),
            },
        ),
    ),
    fault(
        "terminated-still-evaluated",
        "SDK-BOOTSTRAP-ID-ONLY-ACTIVE",
        "A unit keeps the content of a terminated experiment it was in.",
        terminated_still_evaluated,
    ),
    fault(
        "unit-type-ignored",
        "SDK-BOOTSTRAP-ID-UNIT-TYPE",
        "The unit-type header is ignored: every unit is a user.",
        edit_request(BOOTSTRAP, _unit_type_ignored),
    ),
    fault(
        "untouched-configs-personalised",
        "SDK-BOOTSTRAP-ID-UNTOUCHED-CONFIGS",
        "Configurations without an experiment get a per-unit member.",
        edit_json(with_identity, _untouched_configs_changed),
    ),
    fault(
        "unit-etag-is-status-etag",
        "SDK-BOOTSTRAP-ID-ETAG-EQUALS-HASH",
        "Per-unit bootstrap sends the base snapshot's ETag, not its own hash.",
        identity_etag_is_status,
    ),
    # ------------------------------------------------------------ experiment management
    fault(
        "experiment-create-lacks-groups",
        "EXP-CREATE",
        "Create experiment answers without `groups`.",
        edit_json(EXP_CREATE, drop("groups")),
    ),
    fault(
        "server-unit-type-refused",
        "EXP-CREATE-UNIT-TYPES",
        "unitType `server` is refused.",
        answer(EXP_CREATE, _create_refuses("unitType", "server")),
    ),
    fault(
        "round-robin-refused",
        "EXP-CREATE-ASSIGNMENT-MODES",
        "assignmentMode `roundRobin` is refused.",
        answer(EXP_CREATE, _create_refuses("assignmentMode", "roundRobin")),
    ),
    fault(
        "experiment-name-optional",
        "EXP-CREATE-400-FIELDS",
        "An experiment without a string name gets a made-up one.",
        edit_request_json(EXP_CREATE, _create_name_default),
    ),
    fault(
        "weights-normalised",
        "EXP-CREATE-400-WEIGHTS",
        "Weights off the total are silently fixed on the last group.",
        edit_request_json(EXP_CREATE, _weights_normalised),
    ),
    fault(
        "groups-truncated",
        "EXP-CREATE-400-GROUP-COUNT",
        "More than 8 groups are cut to 8 instead of refused.",
        edit_request_json(EXP_CREATE, _groups_truncated),
    ),
    fault(
        "base-config-any",
        "EXP-CREATE-400-BASE-CONFIG",
        "An unknown base configuration is replaced by the last one created.",
        base_config_any,
    ),
    fault(
        "list-drops-one",
        "EXP-LIST",
        "List experiments leaves out the first item of each page.",
        edit_json(EXP_LIST, _drop_last_item),
    ),
    fault(
        "get-renames",
        "EXP-GET",
        "Get experiment answers another name.",
        edit_json(EXP_GET, set_field("name", lambda d: f"{d.get('name')} (copy)")),
    ),
    fault(
        "analytics-catalog-empty",
        "EXP-ANALYTICS-CATALOG",
        "The analytics catalog is always empty.",
        edit_json(EXP_CATALOG, _no_items),
    ),
    fault(
        "project-counts-inflated",
        "EXP-ASSIGNMENT-COUNTS EXP-COUNTS-AGREE-TOTALS",
        "Project-wide counts add one phantom active unit per experiment.",
        edit_json(EXP_COUNTS, _totals_plus_one),
    ),
    fault(
        "context-properties-object",
        "EXP-CONTEXT-PROPERTIES EXP-CONTEXT-PROPERTIES-RECORDED",
        "Context properties answer an object keyed by name instead of a list.",
        edit_json(
            EXP_CONTEXT, lambda d, r: {"items": {i.get("name"): i for i in d.get("items", [])}}
        ),
    ),
    fault(
        "context-properties-forgotten",
        "EXP-CONTEXT-PROPERTIES-RECORDED",
        "Context properties sent by units are not recorded (the list stays empty).",
        edit_json(EXP_CONTEXT, _no_items),
    ),
    fault(
        "group-counts-inflated",
        "EXP-GROUP-COUNTS EXP-COUNTS-AGREE-MEMBERS",
        "Per-group counts add one phantom active unit.",
        edit_json(EXP_GROUP_COUNTS, _active_plus_one),
    ),
    fault(
        "assignments-list-empty",
        "EXP-ASSIGNMENTS-LIST",
        "Assignments of an experiment list nothing.",
        edit_json(EXP_ASSIGNMENTS, _no_items),
    ),
    fault(
        "members-list-empty",
        "EXP-MEMBERS",
        "Members of an experiment list nothing.",
        edit_json(EXP_MEMBERS, _no_items),
    ),
    fault(
        "manual-assignment-not-kept",
        "EXP-MANUAL-ASSIGNMENT EXP-MANUAL-ASSIGNMENT-CONTENT",
        "A manual assignment is acknowledged but not stored.",
        manual_on_probe,
    ),
    fault(
        "foreign-group-accepted",
        "EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP",
        "A manual assignment to a group of another experiment is acknowledged.",
        on_status(
            EXP_ASSIGN,
            404,
            lambda r, resp: json_response(200, {**(r.json() or {}), "source": "manual"}),
        ),
    ),
    fault(
        "unenroll-ignored",
        "EXP-UNENROLL EXP-UNENROLL-BASE-CONTENT",
        "Unenroll is acknowledged but nothing changes.",
        answer(EXP_UNENROLL, fake_ack),
    ),
    fault(
        "unenrolled-keeps-content",
        "EXP-UNENROLL-BASE-CONTENT",
        "An unenrolled unit keeps its group's content.",
        unenrolled_keeps_content,
    ),
    fault(
        "reactivate-ignored",
        "EXP-REACTIVATE",
        "Reactivate is acknowledged but nothing changes.",
        answer(EXP_REACTIVATE, fake_ack),
    ),
    fault(
        "rollout-as-fraction",
        "EXP-ROLLOUT-GET",
        "Rollout GET answers the percentage as a fraction of 1.",
        edit_json(EXP_ROLLOUT_GET, _rollout_as_fraction),
    ),
    fault(
        "rollout-not-kept",
        "EXP-ROLLOUT-CHANGE EXP-ROLLOUT-LIMITS-ENROLMENT",
        "A percentage change is acknowledged but not stored.",
        rollout_not_kept,
    ),
    fault(
        "rollout-clamped",
        "EXP-ROLLOUT-CHANGE-INVALID",
        "A percentage out of 0..100 is clamped instead of refused.",
        edit_request_json(EXP_ROLLOUT, _percentage_clamped),
    ),
    fault(
        "zero-rollout-ignored",
        "EXP-ROLLOUT-LIMITS-ENROLMENT",
        "A zero rollout is shown but units are still enrolled.",
        rollout_zero_ignored,
    ),
    fault(
        "terminate-ignored",
        "EXP-TERMINATE EXP-TERMINATE-LEAVES-SNAPSHOT EXP-TERMINATE-FINAL "
        "EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE SDK-BOOTSTRAP-ID-ONLY-ACTIVE",
        "Terminate is acknowledged but the experiment keeps running.",
        answer(EXP_TERMINATE, lambda r: json_response(200, {"status": "terminated"})),
    ),
    fault(
        "terminated-revivable",
        "EXP-TERMINATE-FINAL",
        "Actions on a terminated experiment answer 200 instead of 409.",
        on_status(EXPERIMENTS, 409, _invalid_transition_ok),
    ),
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
            SNAPSHOT, each_summary(lambda s: [g.pop("ordinal", None) for g in s.get("groups", [])])
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
        "EXP-ASSIGNMENT-DETERMINISTIC EXP-ASSIGNMENT-COUNTS",
        "Each evaluation buckets the unit afresh (a random salt).",
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
                "items": [i for i in d.get("items", []) if i.get("source", "manual") == "manual"],
            },
        ),
    ),
    fault(
        "required-properties-filled",
        "EXP-REQUIRED-PROPERTIES-GATE",
        "Units lacking a required property are enrolled anyway.",
        required_properties_filled,
    ),
    fault(
        "experiments-not-json",
        "EXP-RESPONSE-CONTENT-TYPE-JSON",
        "Get experiment answers Content-Type text/plain.",
        edit_response(EXP_GET, lambda r, resp: resp.with_header("content-type", "text/plain")),
    ),
    fault(
        "unknown-experiment-400",
        "EXP-UNKNOWN-404",
        "An unknown experiment answers 400 instead of 404.",
        on_status(
            EXPERIMENTS,
            404,
            lambda r, resp: (
                error_response(400, "INVALID_EXPERIMENT")
                if "EXPERIMENT_NOT_FOUND" in resp.body.decode()
                else resp
            ),
        ),
    ),
    # ------------------------------------------------------------ experiment authentication
    fault(
        "experiments-open",
        "AUTH-EXP-MISSING",
        "Experiment endpoints without credentials act as the owner.",
        lambda ctx: edit_request(
            EXPERIMENTS,
            lambda r: (
                r
                if r.header("authorization")
                else r.with_header("authorization", f"Bearer {ctx.pat}")
            ),
        ),
    ),
    fault(
        "experiments-any-pat-is-owner",
        "AUTH-EXP-INVALID",
        "Experiment endpoints take any Bearer svc_pat_ token no owner holds as the owner's; a"
        " missing header and tokens without the prefix are still refused.",
        lambda ctx: edit_request(
            EXPERIMENTS,
            lambda r: (
                r.with_header("authorization", f"Bearer {ctx.pat}")
                if _unknown_pat(ctx, r.header("authorization"))
                else r
            ),
        ),
    ),
    fault(
        "experiments-foreign-project",
        "AUTH-EXP-FOREIGN-PROJECT",
        "Experiments of another owner's project are served from one's own.",
        edit_request(EXPERIMENTS, _foreign_project_rewritten),
    ),
    fault(
        "experiments-take-sdk-keys",
        "AUTH-EXP-SDK-KEY-REFUSED",
        "An SDK key acts as the owner on experiment endpoints.",
        lambda ctx: edit_request(
            EXPERIMENTS,
            lambda r: (
                r.with_header("authorization", f"Bearer {ctx.pat}")
                if any(k in (r.header("authorization") or "") for k in ctx.sdk_keys)
                else r
            ),
        ),
    ),
)


def _unknown_pat(ctx: Context, header: str | None) -> bool:
    """``Bearer svc_pat_...`` with a token neither the owner nor the foreign owner holds."""
    token = (header or "").removeprefix("Bearer ")
    return (
        token != header
        and token.startswith("svc_pat_")
        and token
        not in (
            ctx.pat,
            ctx.foreign_pat,
        )
    )


def _swap_key(
    ctx: Context, when_key: Callable[[str | None], bool], key: Callable[[], str]
) -> Handler:
    return edit_request(
        SDK,
        lambda r: (
            r.with_header("authorization", key()) if when_key(r.header("authorization")) else r
        ),
    )


def _not_json_errors(where: Callable[[Request], bool]) -> Handler:
    return edit_response(
        where,
        lambda r, resp: (
            resp.replace(body=b"error: " + resp.body).with_header("content-type", "text/plain")
            if 400 <= resp.status < 500
            else resp
        ),
    )


def _code_renamed(request: Request, response: Response) -> Response:
    data = response.json()
    if 400 <= response.status < 600 and isinstance(data, dict) and "errorCode" in data:
        data["code"] = data.pop("errorCode")
        return response.with_json(data)
    return response


def _missing_name_422(request: Request) -> Response | None:
    body = request.json()
    if isinstance(body, dict) and "name" not in body:
        return error_response(422, "UNPROCESSABLE")
    return None


def _not_json_recovered(request: Request, response: Response) -> Request | Response:
    if "INVALID_JSON" not in response.body.decode():
        return response
    return request.with_json({} if PATCH(request) else {"name": "recovered"})


def _long_numeric_crashes(request: Request) -> Response | None:
    value = request.header("project-id") or ""
    if len(value) > 30:
        return Response(500, {"content-type": "text/plain"}, b"Internal Server Error")
    return None


def _unknown_project_is_one(request: Request, response: Response) -> Request | Response:
    if "PROJECT_NOT_FOUND" in response.body.decode():
        return with_path(request, r"^/application/[^/]+/", "/application/1/")
    return response


def _polling(value: Any) -> Callable[[Any, Request], Any]:
    def edit(data: Any, request: Request) -> Any:
        if "polling" in data:
            data["polling"] = value(data["polling"])
        return data

    return edit


def _always_polling(data: Any, request: Request) -> Any:
    data.setdefault("polling", {"intervalSeconds": 30, "jitterRatio": 0.2})
    return data


def _id_stripped(request: Request) -> Request:
    value = request.header("server-id")
    return request.with_header("server-id", None) if value and len(value) <= 128 else request


def _id_per_connection(request: Request) -> Request:
    if request.header("server-id") is None:
        client = request.scope.get("client") or ("", 0)
        return request.with_header("server-id", f"connection-{client[1]}")
    return request


EDGE_FAULTS: tuple[Fault, ...] = (
    # ------------------------------------------------------------ management authentication
    fault(
        "management-open",
        "AUTH-PAT-MISSING",
        "Management without credentials acts as the owner.",
        lambda ctx: edit_request(
            MANAGEMENT,
            lambda r: (
                r
                if r.header("authorization")
                else r.with_header("authorization", f"Bearer {ctx.pat}")
            ),
        ),
    ),
    fault(
        "any-token-is-owner",
        "AUTH-PAT-INVALID",
        "An unknown svc_pat_ token acts as the owner.",
        lambda ctx: on_status(
            MANAGEMENT,
            401,
            lambda r, resp: (
                r.with_header("authorization", f"Bearer {ctx.pat}")
                if "INVALID_TOKEN" in resp.body.decode()
                else resp
            ),
        ),
    ),
    fault(
        "management-takes-sdk-keys",
        "AUTH-SDK-KEY-NO-MANAGEMENT",
        "An SDK key acts as the owner on configuration management.",
        lambda ctx: edit_request(
            MANAGEMENT,
            lambda r: (
                r.with_header("authorization", f"Bearer {ctx.pat}")
                if any(k in (r.header("authorization") or "") for k in ctx.sdk_keys)
                else r
            ),
        ),
    ),
    fault(
        "token-reaches-other-owner",
        "AUTH-PAT-FOREIGN-PROJECT",
        "A personal access token reaches another owner's project (it acts as that owner).",
        lambda ctx: edit_request(
            MANAGEMENT,
            lambda r: (
                r.with_header("authorization", f"Bearer {ctx.foreign_pat}")
                if r.path.startswith("/application/2/")
                else r
            ),
        ),
    ),
    # ------------------------------------------------------------ SDK authentication
    fault(
        "all-scope-key-refused",
        "AUTH-SDK-KEY-ACCEPTED AUTH-SDK-ENV-IN-SCOPE",
        "The key scoped to both environments is refused when it asks for development.",
        lambda ctx: answer(
            SDK,
            lambda r: (
                error_response(401, "INVALID_KEY")
                if r.header("authorization") == ctx.all_key
                and r.header("environment") in (None, "development")
                else None
            ),
        ),
    ),
    fault(
        "legacy-prefix-refused",
        "AUTH-SDK-LEGACY-PREFIX VER-LEGACY-KEY-SAME-SNAPSHOT",
        "Legacy `sdk_` keys are refused.",
        answer(
            SDK,
            lambda r: (
                error_response(401, "INVALID_KEY")
                if (r.header("authorization") or "").startswith("sdk_")
                else None
            ),
        ),
    ),
    fault(
        "legacy-snapshot-differs",
        "VER-LEGACY-KEY-SAME-SNAPSHOT",
        "A legacy key is served a snapshot with another hash.",
        _legacy_snapshot_differs,
    ),
    fault(
        "sdk-open",
        "AUTH-SDK-MISSING",
        "SDK endpoints without a key serve the development key's snapshot.",
        lambda ctx: _swap_key(ctx, lambda k: k is None, lambda: ctx.dev_key),
    ),
    fault(
        "sdk-any-key",
        "AUTH-SDK-INVALID",
        "An unknown key is served as the development key.",
        lambda ctx: _swap_key(
            ctx,
            lambda k: k is not None and k not in ctx.sdk_keys and "svc_pat_" not in k,
            lambda: ctx.dev_key,
        ),
    ),
    fault(
        "sdk-takes-pat",
        "AUTH-SDK-PAT-REFUSED",
        "A personal access token is accepted as an SDK key.",
        lambda ctx: _swap_key(
            ctx, lambda k: k is not None and "svc_pat_" in k, lambda: ctx.dev_key
        ),
    ),
    fault(
        "foreign-key-sees-demo",
        "AUTH-SDK-PROJECT-SCOPED AUTH-SDK-NUMERIC-NO-ESCAPE",
        "The foreign project's key is served this project's snapshot.",
        lambda ctx: _swap_key(ctx, lambda k: k == ctx.foreign_key, lambda: ctx.all_key),
    ),
    fault(
        "numeric-header-escapes",
        "AUTH-SDK-NUMERIC-NO-ESCAPE",
        "The numeric header selects another project whatever the key.",
        lambda ctx: edit_request(
            SDK,
            lambda r: (
                r.with_header("authorization", ctx.foreign_key)
                if r.header("project-id") == "2"
                else r
            ),
        ),
    ),
    fault(
        "in-scope-production-refused",
        "AUTH-SDK-ENV-IN-SCOPE",
        "The two-environment key is refused production (403), though it is in scope.",
        lambda ctx: answer(
            SDK,
            lambda r: (
                error_response(403, "FORBIDDEN")
                if r.header("authorization") == ctx.all_key
                and r.header("environment") == "production"
                else None
            ),
        ),
    ),
    # ------------------------------------------------------------ errors
    fault(
        "status-errors-not-json",
        "ERR-STATUS-BODY-JSON",
        "Status errors answer text/plain.",
        _not_json_errors(STATUS),
    ),
    fault(
        "management-errors-not-json",
        "ERR-BODY-JSON",
        "Management errors answer text/plain.",
        _not_json_errors(MANAGEMENT),
    ),
    fault(
        "error-code-renamed",
        "ERR-BODY-SHAPE",
        "Error bodies name the code `code`, not the declared field.",
        edit_response(lambda r: True, _code_renamed),
    ),
    fault(
        "validation-422",
        "ERR-VALIDATION-400",
        "A create without a name answers 422.",
        answer(CREATE, _missing_name_422),
    ),
    fault(
        "broken-json-recovered",
        "ERR-MALFORMED-JSON",
        "A body that is not JSON is taken as a minimal valid one.",
        on_status(MANAGEMENT, 400, _not_json_recovered),
    ),
    fault(
        "unknown-configuration-410",
        "ERR-UNKNOWN-CONFIGURATION-404",
        "An unknown configuration answers 410 instead of 404.",
        on_status(
            PATCH,
            404,
            lambda r, resp: (
                error_response(410, "GONE")
                if "CONFIGURATION_NOT_FOUND" in resp.body.decode()
                else resp
            ),
        ),
    ),
    fault(
        "unknown-project-is-one",
        "ERR-UNKNOWN-PROJECT",
        "An unknown project id falls back to project 1.",
        on_status(MANAGEMENT, 404, _unknown_project_is_one),
    ),
    fault(
        "long-numeric-500",
        "ERR-NO-SERVER-ERROR",
        "A numeric header longer than 30 digits crashes the server (500).",
        answer(SDK, _long_numeric_crashes),
    ),
    # ------------------------------------------------------------ rate limit
    fault(
        "rate-limit-off",
        "LIMIT-RATE-ENFORCED LIMIT-RATE-SHARED-WITHOUT-ID",
        "No rate limit: a limited request is retried in a fresh bucket.",
        on_status(STATUS, 429, no_rate_limit),
    ),
    fault(
        "rate-limit-too-strict",
        "LIMIT-RATE-WITHIN-BUDGET",
        "A bucket of 20 (refill 20/s) in front of the declared 60/30.",
        strict_bucket,
    ),
    fault(
        "rate-limit-one-bucket",
        "LIMIT-RATE-PER-INSTANCE",
        "One rate-limit bucket is shared across instance ids.",
        edit_request(STATUS, _id_stripped),
    ),
    fault(
        "rate-limit-per-connection",
        "LIMIT-RATE-SHARED-WITHOUT-ID",
        "Callers without an instance id get a bucket per connection, not one per address.",
        edit_request(STATUS, _id_per_connection),
    ),
    fault(
        "429-without-retry-after",
        "LIMIT-RATE-429-RETRY-AFTER",
        "A 429 carries no Retry-After.",
        edit_response(
            STATUS,
            lambda r, resp: resp.with_header("retry-after", None) if resp.status == 429 else resp,
        ),
    ),
    fault(
        "rate-limit-long-penalty",
        "LIMIT-RATE-RECOVERS",
        "Once limited, an instance stays limited for 30 s whatever Retry-After says.",
        long_penalty,
    ),
    # ------------------------------------------------------------ load shedding
    fault(
        "polling-always",
        "POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD",
        "Snapshots always carry the polling hint.",
        edit_json(SNAPSHOT, _always_polling),
    ),
    fault(
        "polling-never",
        "POLL-HINT-UNDER-LOAD",
        "`polling` is never sent, even under load.",
        edit_json(SNAPSHOT, drop("polling")),
    ),
    fault(
        "polling-sticks",
        "POLL-HINT-GONE-AFTER-LOAD POLL-HINT-ABSENT-NORMALLY",
        "Once sent, the polling hint stays for a minute after the load fell.",
        sticky_polling,
    ),
    fault(
        "polling-strings",
        "POLL-HINT-SHAPE POLL-HINT-VALUES-USABLE",
        "The polling hint's numbers are strings.",
        edit_json(SNAPSHOT, _polling(lambda p: {k: str(v) for k, v in p.items()})),
    ),
    fault(
        "polling-unusable",
        "POLL-HINT-VALUES-USABLE",
        "The polling hint says a negative interval and a jitter ratio of 5.",
        edit_json(SNAPSHOT, _polling(lambda p: {"intervalSeconds": -30, "jitterRatio": 5})),
    ),
    fault(
        "polling-not-on-bootstrap",
        "POLL-HINT-ON-BOOTSTRAP",
        "Bootstrap never carries the polling hint.",
        edit_json(BOOTSTRAP, drop("polling")),
    ),
)

from faulty.escapes import escapes  # noqa: E402  (the section builds on the names above)

FAULTS = FAULTS + SDK_FAULTS + EXPERIMENT_FAULTS + EDGE_FAULTS + escapes()
