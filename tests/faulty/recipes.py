"""The building blocks every section of the fault catalogue is written with.

``Fault`` (a catalogue entry) and ``fault`` (its builder); routes (predicates on a ``Request``);
combinators that build ``Handler`` values: rewrite the request before the reference app sees it,
rewrite the JSON it answers, answer in its place, or chain several of these; the JSON edits and
defects more than one section uses; and the withholding recipes of the escapes (hold an answer,
reset the connection). Faults that need memory (a frozen hash, a cached summary) are written as
closures over state created per server, in the section that uses them (``faulty.catalogue``
lists the sections).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import random
import re
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response
from faulty.context import Context

Route = Callable[[Request], bool]

_APP = r"^/application/[^/]+/v2"


def route(method: str, pattern: str) -> Route:
    compiled = re.compile(pattern)

    def matches(request: Request) -> bool:
        return (method == "*" or request.method == method) and bool(compiled.search(request.path))

    return matches


def either(*routes: Route) -> Route:
    return lambda request: any(r(request) for r in routes)


CREATE = route("POST", _APP + r"/configuration/?$")
PATCH = route("PATCH", _APP + r"/configuration/[^/]+$")
MANAGEMENT = route("*", _APP + r"/configuration")
EXPERIMENTS = route("*", _APP + r"/experiments")
STATUS = route("GET", r"^/sdk/v2/status$")
BOOTSTRAP = route("GET", r"^/sdk/v2/bootstrap$")
SDK = route("*", r"^/sdk/")
SNAPSHOT = either(STATUS, BOOTSTRAP)
EXP_ID = _APP + r"/experiments/(?!analytics-catalog|assignment-counts|context-properties)[^/]+"
EXP_CREATE = route("POST", _APP + r"/experiments/?$")
EXP_LIST = route("GET", _APP + r"/experiments/?$")
EXP_GET = route("GET", EXP_ID + r"$")
EXP_CATALOG = route("GET", _APP + r"/experiments/analytics-catalog$")
EXP_COUNTS = route("GET", _APP + r"/experiments/assignment-counts$")
EXP_CONTEXT = route("GET", _APP + r"/experiments/context-properties$")
EXP_GROUP_COUNTS = route("GET", EXP_ID + r"/assignment-counts$")
EXP_ASSIGNMENTS = route("GET", EXP_ID + r"/assignments$")
EXP_ASSIGN = route("POST", EXP_ID + r"/assignments$")
EXP_REACTIVATE = route("POST", EXP_ID + r"/assignments/reactivate$")
EXP_UNENROLL = route("POST", EXP_ID + r"/assignments/unenroll$")
EXP_MEMBERS = route("GET", EXP_ID + r"/members$")
EXP_ROLLOUT_GET = route("GET", EXP_ID + r"/rollout$")
EXP_ROLLOUT = route("PATCH", EXP_ID + r"/rollout$")
EXP_TERMINATE = route("POST", EXP_ID + r"/terminate$")


def with_identity(request: Request) -> bool:
    return BOOTSTRAP(request) and request.header("unit-id") is not None


def without_identity(request: Request) -> bool:
    return SNAPSHOT(request) and request.header("unit-id") is None


def ok(response: Response) -> bool:
    return 200 <= response.status < 300


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def quoted(tag: str) -> str:
    return f'"{tag}"'


def unquoted(value: str) -> str:
    value = value.strip()
    value = value[2:] if value.startswith("W/") else value
    return value.strip('"')


# ------------------------------------------------------------------ the catalogue's entries

Make = Callable[[Context], Handler]


@dataclass(frozen=True)
class Fault:
    """One defect: its name, the requirement ids it breaks, what it does, and how to build it."""

    name: str
    breaks: frozenset[str]
    doc: str
    make: Make = field(repr=False)
    watch: frozenset[str] = frozenset()  # extra ids to run besides the broken ones' families
    profile: dict[str, Any] = field(default_factory=dict)  # merged into the target profile
    settings: dict[str, Any] = field(default_factory=dict)  # the reference server's settings


def fault(
    name: str,
    breaks: str,
    doc: str,
    make: Make | Handler,
    watch: str = "",
    profile: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
) -> Fault:
    """A catalogue entry; ``make`` may be a plain handler when the fault keeps no state."""
    params = list(inspect.signature(make).parameters)
    builder: Make = make if params == ["ctx"] else (lambda ctx: make)  # type: ignore[assignment,return-value]
    return Fault(
        name,
        frozenset(breaks.split()),
        doc,
        builder,
        frozenset(watch.split()),
        profile or {},
        settings or {},
    )


# ------------------------------------------------------------------ combinators


async def passthrough(request: Request, forward: Forward) -> Response:
    return await forward(request)


def when(where: Route, handler: Handler) -> Handler:
    """``handler`` on the requests of ``where``; the reference app for the rest."""

    async def routed(request: Request, forward: Forward) -> Response:
        return await (handler if where(request) else passthrough)(request, forward)

    return routed


def chain(*handlers: Handler) -> Handler:
    """The first handler's ``forward`` is the second handler, and so on to the reference app."""

    async def chained(request: Request, forward: Forward) -> Response:
        async def step(index: int, current: Request) -> Response:
            if index == len(handlers):
                return await forward(current)
            return await handlers[index](current, lambda r: step(index + 1, r))

        return await step(0, request)

    return chained


def edit_request(where: Route, edit: Callable[[Request], Request]) -> Handler:
    """Change matching requests before the reference app sees them."""

    async def handler(request: Request, forward: Forward) -> Response:
        return await forward(edit(request) if where(request) else request)

    return handler


def edit_response(where: Route, edit: Callable[[Request, Response], Response]) -> Handler:
    """Change what the reference app answers to matching requests."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        return edit(request, response) if where(request) else response

    return handler


def edit_json(
    where: Route, edit: Callable[[Any, Request], Any], statuses: range = range(200, 300)
) -> Handler:
    """Change the JSON body of matching responses whose status is in ``statuses``."""

    def rewrite(request: Request, response: Response) -> Response:
        data = response.json()
        if response.status not in statuses or data is None:
            return response
        return response.with_json(edit(data, request))

    return edit_response(where, rewrite)


def edit_request_json(where: Route, edit: Callable[[Any], Any]) -> Handler:
    """Change the JSON body of matching requests (bodies that are not JSON pass unchanged)."""

    def rewrite(request: Request) -> Request:
        data = request.json()
        return request if data is None else request.with_json(edit(data))

    return edit_request(where, rewrite)


def answer(where: Route, make: Callable[[Request], Response | None]) -> Handler:
    """Answer matching requests in the server's place (``make`` returning None: forward)."""

    async def handler(request: Request, forward: Forward) -> Response:
        made = make(request) if where(request) else None
        return made if made is not None else await forward(request)

    return handler


def on_status(
    where: Route, status: int, retry: Callable[[Request, Response], Request | Response]
) -> Handler:
    """When the reference app answers ``status``, send another request (or answer) instead."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if not where(request) or response.status != status:
            return response
        made = retry(request, response)
        return made if isinstance(made, Response) else await forward(made)

    return handler


def scope_ignored(ctx: Context) -> Callable[[Request, Response], Request | Response]:
    """A refusal of an SDK request answered again under the all-scope key: the key's
    environment scope ignored (``on_status(..., 403, scope_ignored(ctx))``)."""
    return lambda r, resp: r.with_header("authorization", ctx.all_key) if SDK(r) else resp


def json_edit_items(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Any, Request], Any]:
    """An ``edit_json`` function applying ``edit`` to each element of ``items`` (in place)."""

    def apply(data: Any, request: Request) -> Any:
        for item in data.get("items", []):
            edit(item)
        return data

    return apply


def summaries(data: Any) -> list[dict[str, Any]]:
    """The experiment summaries of a snapshot body."""
    experiments = data.get("experiments") or {}
    return [s for kind in ("user", "server") for s in experiments.get(kind, [])]


# ------------------------------------------------------------------ shared by several sections


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


def with_path(request: Request, pattern: str, replacement: str) -> Request:
    return request.replace(path=re.sub(pattern, replacement, request.path))


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


def no_rate_limit(request: Request, response: Response) -> Request:
    return request.with_header("server-id", f"fresh-{random.random()}")


def code_renamed(request: Request, response: Response) -> Response:
    data = response.json()
    if 400 <= response.status < 600 and isinstance(data, dict) and "errorCode" in data:
        data["code"] = data.pop("errorCode")
        return response.with_json(data)
    return response


def id_stripped(request: Request) -> Request:
    value = request.header("server-id")
    return request.with_header("server-id", None) if value and len(value) <= 128 else request


# ------------------------------------------------------------------ withholding an answer
# The escapes section (``faulty.escapes``): a server that owes an answer and does not give one.

# The suite gives up on an answer after min(profile ``responses.max_seconds``, the client's read
# timeout ``traffic.client.TIMEOUT``, which is not a profile key). A holding fault runs with
# ``HOLD_PROFILE`` so that a held request (tried twice by the client) costs seconds, not the
# default 30 s deadline, and holds a little longer than that deadline.
HOLD_DEADLINE_SECONDS = 3.0
HOLD_SECONDS = HOLD_DEADLINE_SECONDS + 1.5
HOLD_PROFILE: dict[str, Any] = {"responses": {"max_seconds": HOLD_DEADLINE_SECONDS}}


def _connection_transport() -> Any:
    """The transport of the connection whose request the current task serves (uvicorn's h11 and
    httptools servers run each request in a task whose coroutine is
    ``RequestResponseCycle.run_asgi``). Duck-typed: uvloop's transports are not subclasses of
    ``asyncio.BaseTransport``."""
    task = asyncio.current_task()
    frame = getattr(task.get_coro(), "cr_frame", None) if task is not None else None
    cycle = frame.f_locals.get("self") if frame is not None else None
    transport = getattr(cycle, "transport", None)
    if callable(getattr(transport, "get_extra_info", None)) and callable(
        getattr(transport, "close", None)
    ):
        return transport
    return None


def reset_connection() -> Response:
    """Abort the current connection with a TCP reset (SO_LINGER 0), as a crashed peer would.

    Returns a response that is never sent: the server drops whatever follows on a lost
    connection."""
    transport = _connection_transport()
    if transport is None:
        raise RuntimeError("no connection to reset: the fault runs outside uvicorn's server")
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    abort = getattr(transport, "abort", None)
    if callable(abort):
        abort()
    else:
        transport.close()
    return Response(500, {}, b"")


def hold(where: Route, when: Callable[[Request, Response], bool]) -> Handler:
    """Answer matching requests only after ``HOLD_SECONDS`` (the client has gone by then, given
    ``HOLD_PROFILE``) when ``when`` holds for the reference app's answer; the rest pass."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        if where(request) and when(request, response):
            await asyncio.sleep(HOLD_SECONDS)
        return response

    return handler


def reset(where: Route, when: Callable[[Request, Response], bool]) -> Handler:
    """Reset the connection instead of answering matching requests when ``when`` holds for the
    reference app's answer (the request was still served: a write is not undone)."""

    async def handler(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        return reset_connection() if where(request) and when(request, response) else response

    return handler


def error_code_of(response: Response) -> str | None:
    """The reference app's ``errorCode`` (None when the body is no such object)."""
    data = response.json()
    code = data.get("errorCode") if isinstance(data, dict) else None
    return code if isinstance(code, str) else None


def owner_without_credentials(where: Route) -> Make:
    """Requests on ``where`` without credentials act as the owner (the profile's token is added)."""
    return lambda ctx: edit_request(
        where,
        lambda r: (
            r if r.header("authorization") else r.with_header("authorization", f"Bearer {ctx.pat}")
        ),
    )


def legacy_key_refused(request: Request) -> Response | None:
    """A 401 for a request whose key has the older ``sdk_`` prefix (None: served)."""
    if (request.header("authorization") or "").startswith("sdk_"):
        return error_response(401, "INVALID_KEY")
    return None
