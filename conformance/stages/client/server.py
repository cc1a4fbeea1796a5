"""The scripted server: a raw ASGI app that answers every client instance from its scenario's
script and records each request, served by uvicorn on 127.0.0.1 in a thread of its own.

Each instance gets its own listening socket, so a request is attributed to its instance by the
port it came in on, whatever the client sends. A scenario that plays refused connections puts a
doorman (``doorman.Doorman``) in front of its instances. No refserver code: the answers are the
spec's shapes (2.4, 4.3) filled from the script.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from email.utils import formatdate
from typing import Any
from urllib.parse import parse_qsl

import uvicorn

from conformance.json_types import JsonArray, JsonObject
from conformance.stages.client.doorman import Doorman
from conformance.stages.client.recording import (
    KEY_PLACEHOLDER,
    Recorded,
    redacted_headers,
    strip_tag,
)
from conformance.stages.client.scenarios import Snapshot
from conformance.stages.client.script import InstanceScript
from conformance.stages.client.settings import BOOTSTRAP_PATH, STATUS_PATH, ClientSettings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

STARTUP_TIMEOUT_S = 10.0


class ScriptedApp:
    """The ASGI app: status from the script, refetches from the held snapshot, all recorded."""

    def __init__(self, settings: ClientSettings, key: str, started: float) -> None:
        self.settings = settings
        self.key = key
        self.started = started
        self.by_port: dict[int, InstanceScript] = {}
        self.records: dict[str, list[Recorded]] = {}
        self._per_config = _template_pattern(settings.refetch_request)

    def now(self) -> float:
        return time.monotonic() - self.started

    def add(self, port: int, script: InstanceScript) -> None:
        self.by_port[port] = script
        self.records.setdefault(script.name, [])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        script = self.by_port.get(int(scope["server"][1]))
        if script is None:
            await _send(send, 421, {"errorCode": "MISDIRECTED", "message": "unknown port"})
            return
        now = self.now()
        path = str(scope["path"])
        raw_query = scope.get("query_string", b"").decode("latin-1")
        record = Recorded(
            instance=script.name,
            seq=script.saw_request(now),
            method=str(scope["method"]),
            path=path,
            query={
                name: value.replace(self.key, KEY_PLACEHOLDER)
                for name, value in parse_qsl(raw_query)
            },
            raw_query=raw_query.replace(self.key, KEY_PLACEHOLDER) if self.key else raw_query,
            headers=redacted_headers(scope["headers"], self.key),
            arrived=now,
            kind="other",
        )
        record.kind = self._kind(record)
        self.records[script.name].append(record)
        status, headers, body = self._answer(script, record, scope)
        if script.scenario.close_connections:
            headers["connection"] = "close"
        record.status = status
        record.answered = self.now()
        record.answered_wall = time.time()
        await _send_raw(send, status, headers, body)

    def _kind(self, record: Recorded) -> str:
        """status, refetch (the bootstrap, or the profile's per-configuration template matched
        on path and query string alike) or other."""
        if record.path == STATUS_PATH:
            return "status"
        if self._per_config_id(record) is not None or record.path == BOOTSTRAP_PATH:
            return "refetch"
        return "other"

    def _per_config_id(self, record: Recorded) -> str | None:
        """The id of a per-configuration refetch (None: not one). A template with a query
        string matches the whole target; one without, the path (any query string aside)."""
        if self._per_config is None:
            return None
        pattern, with_query = self._per_config
        match = pattern.fullmatch(record.target if with_query else record.path)
        return match.group("id") if match else None

    def _answer(
        self, script: InstanceScript, record: Recorded, scope: Scope
    ) -> tuple[int, dict[str, str], bytes]:
        # The key itself is the credential (spec 5); a scheme word before it is answered as the
        # key and judged on its own (SDK-CLIENT-AUTHORIZATION), so one defect is one finding.
        raw_key = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1").strip()
        if raw_key.rsplit(" ", 1)[-1] != self.key:
            return _error(401, "UNAUTHORIZED", "the SDK key is missing or wrong")
        if record.kind == "status" and record.method == "GET":
            return self._status(script, record)
        if record.kind == "refetch" and record.method == "GET":
            return self._refetch(script, record)
        return _error(404, "NOT_FOUND", "the scripted server does not serve this request")

    def _status(
        self, script: InstanceScript, record: Recorded
    ) -> tuple[int, dict[str, str], bytes]:
        index, step = script.take_step(record.arrived)
        record.step = index
        if step.answer == "error" or step.answer == "reset":  # a reset step reached over HTTP
            return _error(step.status if step.answer == "error" else 503, "UNAVAILABLE", "scripted")
        if step.answer == "rate-limited":
            status, headers, body = _error(429, "RATE_LIMITED", "scripted rate limit")
            wait = self.settings.scaled(step.retry_after_s)
            if step.retry_after == "date":
                when = math.ceil(time.time() + wait)
                headers["retry-after"] = formatdate(when, usegmt=True)
                record.retry_after_s = when - time.time()
            else:
                seconds = max(1, math.ceil(wait))
                headers["retry-after"] = str(seconds)
                record.retry_after_s = float(seconds)
            return status, headers, body
        snapshot = script.snapshot_of(step)
        script.served = snapshot
        record.snapshot_hash = snapshot.hash
        sent = record.query.get("hash") or strip_tag(record.headers.get("if-none-match", ""))
        etag = {"etag": f'"{snapshot.hash}"'}
        if (step.hint is None or step.not_modified) and sent == snapshot.hash:
            return 304, etag, b""
        payload = _status_body(snapshot)
        if step.hint is not None:
            interval = self.settings.scaled(step.hint.interval_s)
            payload["polling"] = {
                "intervalSeconds": interval,
                "jitterRatio": step.hint.jitter_ratio,
            }
            record.hint = (interval, step.hint.jitter_ratio)
        held = script.held.hashes() if script.held is not None else {}
        record.changed = tuple(
            cid for cid, digest in snapshot.hashes().items() if held.get(cid) != digest
        )
        script.held = snapshot
        return 200, {**etag, "content-type": "application/json"}, _json(payload)

    def _refetch(
        self, script: InstanceScript, record: Recorded
    ) -> tuple[int, dict[str, str], bytes]:
        """A refetch served from the snapshot held (the last status 200). Before any status 200
        (a client that fetches a bootstrap snapshot first, spec 1) the snapshot a status poll
        would be answered now; a whole bootstrap then becomes what the client holds."""
        snapshot = script.held or script.served
        if snapshot is None:
            snapshot = script.snapshot_of(script.peek_step(record.arrived))
            if self._per_config_id(record) is None:
                script.held = snapshot
        wanted = self._per_config_id(record)
        if wanted is None:
            body = _status_body(snapshot, documents=True)
            record.whole = True
            record.refetched = tuple(cid for cid, _, _ in snapshot.configurations)
            record.snapshot_hash = snapshot.hash
            headers = {"etag": f'"{snapshot.hash}"', "content-type": "application/json"}
            return 200, headers, _json(body)
        for cid, alias, version in snapshot.configurations:
            if wanted in (str(cid), alias):
                record.refetched = (cid,)
                entry = _entry(snapshot, cid, alias, version, documents=True)
                return 200, {"content-type": "application/json"}, _json(entry)
        return _error(404, "CONFIGURATION_NOT_FOUND", "no such configuration")


def _template_pattern(template: str) -> tuple[re.Pattern[str], bool] | None:
    """A per-configuration template as a pattern with an ``id`` group, and whether it carries a
    query string (matched then on the whole target); None: the bootstrap."""
    if "{id}" not in template:
        return None
    head, _, tail = template.partition("{id}")
    with_query = "?" in template
    pattern = re.compile(re.escape(head) + r"(?P<id>[^/?&#]+)" + re.escape(tail))
    return pattern, with_query


def _entry(
    snapshot: Snapshot, cid: int, alias: str, version: int, *, documents: bool
) -> JsonObject:
    entry: JsonObject = {
        "id": cid,
        "name": alias.title(),
        "alias": alias,
        "hash": snapshot.configuration_hash(cid),
    }
    if documents:
        entry["configuration"] = {"alias": alias, "version": version}
        entry["privacy"] = []
    return entry


def _status_body(snapshot: Snapshot, *, documents: bool = False) -> JsonObject:
    configurations: JsonArray = [
        _entry(snapshot, cid, alias, version, documents=documents)
        for cid, alias, version in snapshot.configurations
    ]
    return {
        "hash": snapshot.hash,
        "configurations": configurations,
        "primaryConfigurationId": snapshot.configurations[0][0] if configurations else None,
        "experiments": {"user": [], "server": []},
        "requiredProperties": [f"experiments-v{snapshot.experiments_version}"],
    }


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, str], bytes]:
    body = _json({"errorCode": code, "message": message})
    return status, {"content-type": "application/json"}, body


async def _send(send: Send, status: int, body: JsonObject) -> None:
    await _send_raw(send, status, {"content-type": "application/json"}, _json(body))


async def _send_raw(send: Send, status: int, headers: dict[str, str], body: bytes) -> None:
    pairs = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    pairs.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": pairs})
    await send({"type": "http.response.body", "body": body})


def loopback_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


class ScriptedServer:
    """The app on uvicorn in a background thread: one socket per instance, doormen in front of
    the instances of scenarios that play refused connections."""

    def __init__(self, settings: ClientSettings, key: str) -> None:
        self.started = time.monotonic()
        self.app = ScriptedApp(settings, key, self.started)
        self._sockets: list[socket.socket] = []
        self._doormen: list[Doorman] = []
        self.urls: dict[str, str] = {}
        self._server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                http="h11",
                loop="asyncio",
                lifespan="off",
                log_level="error",
                access_log=False,
                timeout_graceful_shutdown=1,
            )
        )
        self._thread = threading.Thread(target=self._run, name="client-stage-server", daemon=True)

    def add(self, script: InstanceScript) -> str:
        """Serve one instance; returns the base URL it is to use."""
        sock = loopback_socket()
        port = int(sock.getsockname()[1])
        self._sockets.append(sock)
        self.app.add(port, script)
        url = f"http://127.0.0.1:{port}"
        if script.scenario.close_connections:
            front = loopback_socket()
            self._doormen.append(Doorman(front, port, script, self.app))
            url = f"http://127.0.0.1:{front.getsockname()[1]}"
        self.urls[script.name] = url
        return url

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        for doorman in self._doormen:
            await doorman.start()
        try:
            await self._server.serve(sockets=self._sockets)
        finally:
            for doorman in self._doormen:
                await doorman.stop()

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the client stage's scripted server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=STARTUP_TIMEOUT_S)
        for sock in self._sockets:
            sock.close()
