"""The SDK endpoints: ``GET /sdk/v2/status`` and ``GET /sdk/v2/bootstrap`` (spec 4.3).

The status path is the hot one and never touches SQLite in the steady state: the key, the
environment and the stored snapshot all come from memory. When one of them must be loaded
(first use, or the first read after a write) that happens on a worker thread, never on the
event loop. Order of checks: key (401) -> header
syntax (400) -> environment scope (403) -> rate limit (429, status only) -> 304 or 200.
Bootstrap with a ``unit-id`` header evaluates the unit with ``unit_bootstrap``: first in a read
transaction on the thread pool (a unit already assigned, with no context to record, needs no
write), else through the group commit writer (``state.unit_writes``), so concurrent first calls
share one COMMIT and the answer leaves only once its assignment is durable.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, NamedTuple

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from refserver import unit_bootstrap
from refserver.auth import SdkKey
from refserver.errors import ApiError
from refserver.inputs import loads
from refserver.snapshot import Snapshot
from refserver.state import AppState, state_of

STATUS_PATH = "/sdk/v2/status"
BOOTSTRAP_PATH = "/sdk/v2/bootstrap"
MAX_SAFE_INTEGER = 9007199254740991
SERVER_ID_MAX = 128
UNIT_ID_MAX = 256

# environment header value -> environment alias
ENVIRONMENT_ALIASES: dict[str, str] = {
    "production": "production",
    "development": "development",
    "studio": "development",
}
UNIT_TYPES = ("user", "server")


class SdkCall(NamedTuple):
    """A checked SDK request: who, which environment, which instance (a NamedTuple: built on
    every poll, and cheaper to build than a frozen dataclass)."""

    key: SdkKey
    environment_id: int
    instance: str
    client_hash: str | None  # the ?hash= value
    if_none_match: str | None


def _utf8(value: str) -> str | None:
    """Header values arrive as latin-1; the text the client meant, or None if not UTF-8."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def _check_project_id(raw: str | None) -> None:
    if raw is None:
        return
    if (
        not (raw.isascii() and raw.isdigit())
        or len(raw) > 16
        or not 0 < int(raw) <= MAX_SAFE_INTEGER
    ):
        raise ApiError(
            400, "INVALID_PROJECT_ID", f"project-id must be an integer in 1..{MAX_SAFE_INTEGER}"
        )


def _server_id(raw: str | None) -> str | None:
    if raw is None:
        return None
    text = _utf8(raw)
    if text is None or not 1 <= len(text) <= SERVER_ID_MAX:
        raise ApiError(
            400, "INVALID_SERVER_ID", f"server-id must be 1 to {SERVER_ID_MAX} characters"
        )
    return text


def _environment_alias(raw: str | None) -> str:
    if raw is None:
        return "development"
    alias = ENVIRONMENT_ALIASES.get(raw)
    if alias is None:
        raise ApiError(
            400, "INVALID_ENVIRONMENT", "environment must be production, development or studio"
        )
    return alias


def _environment_id(state: AppState, project_id: int, alias: str) -> int:
    with state.store.read() as conn:
        row = conn.execute(
            "SELECT id FROM environments WHERE project_id = ? AND alias = ?", (project_id, alias)
        ).fetchone()
    if row is None:
        raise ApiError(404, "ENVIRONMENT_NOT_FOUND", f"the project has no {alias} environment")
    state.environment_ids[(project_id, alias)] = int(row["id"])
    return int(row["id"])


# the request headers check_call reads (ASGI servers send names lowercased)
SDK_HEADERS = frozenset(
    (b"authorization", b"environment", b"project-id", b"server-id", b"if-none-match")
)


def headers_of(request: Request) -> dict[str, str]:
    """The SDK headers of a request in one dict (first occurrence wins), built in one pass: the
    hot path reads several of them and Starlette's Headers scans the list on every lookup."""
    found: dict[str, str] = {}
    for name, value in request.scope["headers"]:
        if name in SDK_HEADERS:
            text = name.decode("latin-1")
            if text not in found:
                found[text] = value.decode("latin-1")
    return found


async def check_call(request: Request, state: AppState) -> SdkCall:
    """Authenticate and check the common SDK headers (everything before the rate limit).

    Answers from memory in the steady state; a first lookup goes to SQLite on a worker thread."""
    headers = headers_of(request)
    raw_key = headers.get("authorization")
    key = state.keys.cached(raw_key)
    if key is None:
        key = await run_in_threadpool(state.keys.authenticate, raw_key)
    alias = _environment_alias(headers.get("environment"))
    _check_project_id(headers.get("project-id"))
    server_id = _server_id(headers.get("server-id"))
    client_hash = request.query_params.get("hash") if request.scope["query_string"] else None
    if client_hash is not None and not client_hash:
        raise ApiError(400, "INVALID_HASH", "hash must not be empty")
    if alias not in key.environments:
        raise ApiError(403, "FORBIDDEN", f"the key's scope does not include {alias}")
    environment_id = state.environment_ids.get((key.project_id, alias))
    if environment_id is None:
        environment_id = await run_in_threadpool(_environment_id, state, key.project_id, alias)
    if server_id is not None:
        instance = "server-id:" + server_id
    else:
        client = request.scope.get("client")  # what Request.client reads, without an Address
        instance = "ip:" + (client[0] if client else "unknown")
    return SdkCall(key, environment_id, instance, client_hash, headers.get("if-none-match"))


def _validators(header: str) -> list[str]:
    """Entity tags of an If-None-Match value, unquoted, weak prefix dropped."""
    tags = []
    for part in header.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if len(tag) >= 2 and tag[0] == '"' and tag[-1] == '"':
            tag = tag[1:-1]
        if tag:
            tags.append(tag)
    return tags


def not_modified(call: SdkCall, current: str) -> bool:
    """Whether ``If-None-Match`` or ``?hash=`` names the current hash."""
    if call.client_hash == current:
        return True
    header = call.if_none_match
    if header is None:
        return False
    if header == f'"{current}"':  # the form clients send
        return True
    return any(tag == "*" or tag == current for tag in _validators(header))


class NotModified(Response):
    """A 304 with its ETag: the same status and headers as ``Response(status_code=304,
    headers={"etag": etag})``, without the general header handling (the 304 is the hot path)."""

    def __init__(self, etag: str) -> None:  # no super().__init__: every field is set here
        self.status_code = 304
        self.background = None
        self.body = b""
        self.raw_headers = [(b"etag", etag.encode("latin-1"))]


def answer(state: AppState, call: SdkCall, digest: str, body: bytes) -> Response:
    """304 or 200 with ETag, adding the polling hint while shedding."""
    etag = f'"{digest}"'
    if not_modified(call, digest):
        return NotModified(etag)
    if state.load.shedding():
        body = body[:-1] + b',"polling":' + state.load.hint_json + b"}"
    return Response(body, status_code=200, media_type="application/json", headers={"etag": etag})


async def sdk_status(request: Request) -> Response:
    """GET /sdk/v2/status: the environment's snapshot without documents."""
    state = state_of(request)
    state.load.hit()
    call = await check_call(request, state)
    scope_key = call.key.key if state.settings.rate_scope == "key-and-instance" else ""
    wait = state.limiter.take(scope_key, call.instance)
    if wait:
        raise ApiError(
            429, "RATE_LIMITED", "too many status requests", headers={"retry-after": str(wait)}
        )
    snap = state.snapshots.cached(call.environment_id)  # from memory: no coroutine to await
    if snap is None:
        snap = await _load_snapshot(state, call)
    return answer(state, call, snap.hash, snap.status_body)


async def _load_snapshot(state: AppState, call: SdkCall) -> Snapshot:
    """The environment's snapshot, loaded on a worker thread (the first read after a write)."""
    return await run_in_threadpool(state.snapshots.get, call.key.project_id, call.environment_id)


@dataclass(frozen=True)
class Identity:
    """The unit a bootstrap evaluates experiments for."""

    unit_id: str
    unit_type: str
    context: dict[str, Any]


def _identity(request: Request) -> Identity | None:
    headers = request.headers
    raw_type = headers.get("unit-type")
    unit_type = "user" if raw_type is None else raw_type
    if unit_type not in UNIT_TYPES:
        raise ApiError(400, "INVALID_UNIT_TYPE", "unit-type must be user or server")
    context = _context(headers.get("unit-context"))
    raw_id = headers.get("unit-id")
    if raw_id is None:
        return None
    unit_id = _utf8(raw_id)
    if unit_id is None or not 1 <= len(unit_id) <= UNIT_ID_MAX:
        raise ApiError(400, "INVALID_UNIT_ID", f"unit-id must be 1 to {UNIT_ID_MAX} characters")
    return Identity(unit_id, unit_type, context)


def _context(raw: str | None) -> dict[str, Any]:
    if raw is None:
        return {}
    text = _utf8(raw)
    problem = ApiError(
        400, "INVALID_CONTEXT", "unit-context must be a JSON object of string/number/boolean"
    )
    if text is None:
        raise problem
    try:
        value = loads(text)
    except (ValueError, RecursionError):
        raise problem from None
    if not isinstance(value, dict) or not all(
        isinstance(v, str | int | float | bool) for v in value.values()
    ):
        raise problem
    return value


def _render(payload: dict[str, Any]) -> tuple[str, bytes]:
    """(hash, body) of a per-unit payload that carries its hash."""
    digest = str(payload["hash"])
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return digest, text.encode("utf-8")


async def _unit_payload(state: AppState, call: SdkCall, identity: Identity) -> tuple[str, bytes]:
    """(hash, body) of the unit's bootstrap: read-only when nothing changes, else committed."""
    where = (state.bases, call.key.project_id, call.environment_id)
    unit = (identity.unit_id, identity.unit_type, identity.context)

    def read(conn: sqlite3.Connection) -> tuple[str, bytes] | None:
        payload = unit_bootstrap.read(conn, *where, *unit)
        return None if payload is None else _render(payload)

    def write(conn: sqlite3.Connection) -> tuple[str, bytes]:
        return _render(unit_bootstrap.build(conn, *where, *unit))

    return await state.unit_writes.run(write, None if identity.context else read)


async def sdk_bootstrap(request: Request) -> Response:
    """GET /sdk/v2/bootstrap: every configuration with its document (per unit with unit-id)."""
    state = state_of(request)
    state.load.hit()
    call = await check_call(request, state)
    identity = _identity(request)
    if identity is None:
        snap = state.snapshots.cached(call.environment_id)
        if snap is None:
            snap = await _load_snapshot(state, call)
        return answer(state, call, snap.hash, snap.bootstrap_body)
    digest, body = await _unit_payload(state, call, identity)
    return answer(state, call, digest, body)
