"""ASGI plumbing of the one-defect servers: buffer each request and its response so a fault can
rewrite them, answer in the server's place, or call the reference app again (a sub-request).

A fault is a ``Handler``: ``async def handler(request, forward) -> Response``. ``forward`` sends a
(possibly changed) request to the unmodified reference app and returns its buffered response.
``FaultyApp`` serves a handler; non-HTTP scopes (lifespan) pass straight through.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send


@dataclass(frozen=True)
class Request:
    """A buffered HTTP request: lower-case header names, query as ordered pairs."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    headers: dict[str, str]
    body: bytes
    scope: Scope = field(repr=False, compare=False, default_factory=dict)

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def param(self, name: str) -> str | None:
        return next((v for k, v in self.query if k == name), None)

    def json(self) -> Any:
        """The JSON body, or None when it is absent or not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def replace(self, **changes: Any) -> Request:
        return dataclasses.replace(self, **changes)

    def with_header(self, name: str, value: str | None) -> Request:
        """The request with a header set (None: removed)."""
        headers = {k: v for k, v in self.headers.items() if k != name.lower()}
        if value is not None:
            headers[name.lower()] = value
        return self.replace(headers=headers)

    def with_json(self, data: Any) -> Request:
        return self.replace(body=json.dumps(data).encode())

    def without_param(self, name: str) -> Request:
        return self.replace(query=tuple((k, v) for k, v in self.query if k != name))


@dataclass(frozen=True)
class Response:
    """A buffered HTTP response: lower-case header names; Content-Length is fixed on sending."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def replace(self, **changes: Any) -> Response:
        return dataclasses.replace(self, **changes)

    def with_header(self, name: str, value: str | None) -> Response:
        headers = {k: v for k, v in self.headers.items() if k != name.lower()}
        if value is not None:
            headers[name.lower()] = value
        return self.replace(headers=headers)

    def with_json(self, data: Any) -> Response:
        return self.replace(body=json.dumps(data).encode())


def json_response(status: int, data: Any, headers: dict[str, str] | None = None) -> Response:
    """A response made up by a fault (not by the reference app)."""
    return Response(
        status, {"content-type": "application/json", **(headers or {})}, json.dumps(data).encode()
    )


def error_response(status: int, code: str) -> Response:
    return json_response(status, {"errorCode": code, "message": f"faulty server: {code}"})


Forward = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Forward], Awaitable[Response]]


def _request_of(scope: Scope, body: bytes) -> Request:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    query = tuple(parse_qsl(scope.get("query_string", b"").decode(), keep_blank_values=True))
    return Request(scope["method"], scope["path"], query, headers, body, scope)


class FaultyApp:
    """Serve ``handler`` in front of the reference ``app``."""

    def __init__(self, app: ASGIApp, handler: Handler) -> None:
        self.app = app
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        response = await self.handler(_request_of(scope, b"".join(chunks)), self.forward)
        body = b"" if response.status in (204, 304) and not response.body else response.body
        headers = {k: v for k, v in response.headers.items() if k != "content-length"}
        if response.status not in (204, 304) or body:
            headers["content-length"] = str(len(body))
        await send(
            {
                "type": "http.response.start",
                "status": response.status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def forward(self, request: Request) -> Response:
        """Send ``request`` to the reference app and buffer what it answers."""
        query = urlencode(request.query).encode()
        scope = {
            **request.scope,
            "method": request.method,
            "path": request.path,
            "raw_path": request.path.encode(),
            "query_string": query,
            "headers": [
                (k.encode("latin-1"), v.encode("latin-1"))
                for k, v in request.headers.items()
                if k != "content-length"
            ]
            + [(b"content-length", str(len(request.body)).encode())],
        }
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:  # the body was read: wait like a client that keeps the connection open
                await asyncio.Event().wait()
            sent = True
            return {"type": "http.request", "body": request.body, "more_body": False}

        status = 500
        headers: dict[str, str] = {}
        chunks: list[bytes] = []

        async def collect(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                for k, v in message.get("headers", []):
                    headers[k.decode("latin-1").lower()] = v.decode("latin-1")
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, collect)
        return Response(status, headers, b"".join(chunks))
