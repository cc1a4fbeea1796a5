"""refserver.status_fast_path: a status GET skips the router and answers exactly as it would."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.types import Message

from refserver.access_log import AccessLog
from refserver.app import create_app, open_state, routes
from refserver.errors import error_handlers
from refserver.provisioning import sdk_key
from refserver.runner import make_settings

LIMITS = {"rate_burst": 3, "rate_refill": 0.001}


def router_only(db: Path) -> Starlette:
    """The app as create_app builds it, but without the fast path."""
    app = Starlette(
        routes=routes(), middleware=[Middleware(AccessLog)], exception_handlers=error_handlers()
    )
    app.state.rces = open_state(make_settings(db, **LIMITS))
    return app


def call(app: Starlette, method: str, path: str, headers: dict[str, str], query: str = "") -> Any:
    """(status, headers, body, whether the router ran) of one request straight to the app."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start, body = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], sorted(start["headers"]), body, "endpoint" in scope


def script(app: Starlette) -> list[Any]:
    """The same requests, by meaning, against one app (its own key and hash)."""
    with app.state.rces.store.read() as conn:
        key, foreign = sdk_key(conn, "all")[0], sdk_key(conn, "foreign")[0]
    digest = app.state.rces.snapshots.get(1, 1).hash
    sdk = {"authorization": key}
    steps = [
        ("GET", "/sdk/v2/status", {}, ""),
        ("GET", "/sdk/v2/status", {"authorization": "svc_pk_unknown"}, ""),
        ("GET", "/sdk/v2/status", {**sdk, "environment": "staging"}, ""),
        ("GET", "/sdk/v2/status", {**sdk, "project-id": "0"}, ""),
        ("GET", "/sdk/v2/status", {"authorization": foreign, "environment": "production"}, ""),
        ("GET", "/sdk/v2/status", sdk, "hash="),
        ("GET", "/sdk/v2/status", {**sdk, "if-none-match": f'"{digest}"'}, ""),
        ("GET", "/sdk/v2/status", sdk, f"hash={digest}"),
        ("GET", "/sdk/v2/status", sdk, ""),
        ("GET", "/sdk/v2/status", sdk, ""),  # the bucket (3) is empty now: 429
        ("HEAD", "/sdk/v2/status", sdk, ""),
        ("POST", "/sdk/v2/status", sdk, ""),
    ]
    answers = []
    for method, path, headers, query in steps:
        status, headers_sent, body, routed = call(app, method, path, headers, query)
        shown = body.replace(digest.encode(), b"<hash>").replace(key.encode(), b"<key>")
        answers.append((method, status, headers_sent, shown, routed))
    return [
        (m, s, [(n, v.replace(digest.encode(), b"<hash>")) for n, v in h], b, r)
        for m, s, h, b, r in answers
    ]


def test_fast_path_answers_as_the_router_does(tmp_path: Path) -> None:
    fast = create_app(make_settings(tmp_path / "fast.db", **LIMITS))
    routed = router_only(tmp_path / "routed.db")
    try:
        by_fast, by_router = script(fast), script(routed)
    finally:
        for app in (fast, routed):
            app.state.rces.unit_writes.close()
            app.state.rces.store.close()
    assert [a[:4] for a in by_fast] == [a[:4] for a in by_router]
    statuses = [a[1] for a in by_fast]
    assert statuses == [401, 401, 400, 400, 403, 400, 304, 304, 200, 429, 429, 405], statuses
    # the fast path took every GET, the router everything else
    assert [a[4] for a in by_fast] == [a[0] != "GET" for a in by_fast]
    assert all(a[4] for a in by_router)
