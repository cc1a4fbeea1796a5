"""The fuzz stage has teeth: a reference server with one planted defect fails the right requirement.

Each defect is a small ASGI middleware around the reference server's app that breaks exactly one
contract rule; the smoke tier runs against it (only the affected operation, to stay fast) and
the report must name the broken requirement, the check, the seed and a redacted curl line.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from stage_runner import run_stage, serve

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


async def answer_500(send: Send) -> None:
    """The planted defect's answer: 500 with a JSON error body."""
    body = b'{"errorCode": "INTERNAL", "message": "planted defect"}'
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class StripETag:
    """Drops the ETag header from every status response (breaks SDK-STATUS-ETAG-EQUALS-HASH)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/sdk/v2/status":
            await self.app(scope, receive, send)
            return

        async def strip(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"etag"
                ]
            await send(message)

        await self.app(scope, receive, strip)


class RewriteHeader:
    """Rewrites one response header on the paths ending in ``suffix`` (``rewrite(value)``)."""

    def __init__(
        self, app: App, suffix: str, name: bytes, rewrite: Callable[[bytes], bytes]
    ) -> None:
        self.app = app
        self.suffix = suffix
        self.name = name
        self.rewrite = rewrite

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith(self.suffix):
            await self.app(scope, receive, send)
            return

        async def rewritten(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    (k, self.rewrite(v) if k.lower() == self.name else v)
                    for k, v in message.get("headers", [])
                ]
            await send(message)

        await self.app(scope, receive, rewritten)


class DropOn405:
    """Drops one header from the 405 answers on the paths ending in ``suffix``."""

    def __init__(self, app: App, suffix: str, name: bytes) -> None:
        self.app = app
        self.suffix = suffix
        self.name = name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith(self.suffix):
            await self.app(scope, receive, send)
            return

        async def dropped(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 405:
                message["headers"] = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != self.name
                ]
            await send(message)

        await self.app(scope, receive, dropped)


class ServerErrorOn:
    """Answers 500 on one path (breaks ERR-NO-SERVER-ERROR)."""

    def __init__(self, app: App, suffix: str) -> None:
        self.app = app
        self.suffix = suffix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith(self.suffix):
            await self.app(scope, receive, send)
            return
        await answer_500(send)


DEFECTS: dict[str, tuple[Callable[[App], App], str, str, str]] = {
    # name: (wrap, -k selection, broken requirement, check)
    "etag-stripped": (
        StripETag,
        "test_fuzz and status and not credentials",
        "SDK-STATUS-ETAG-EQUALS-HASH",
        "etag_equals_body_hash",
    ),
    "etag-unquoted": (  # the value is still the hash: only the entity-tag grammar is broken
        lambda app: RewriteHeader(app, "/sdk/v2/status", b"etag", lambda v: v.strip(b'"')),
        "test_fuzz and status and not credentials",
        "SDK-STATUS-ETAG-EQUALS-HASH",
        "etag_grammar",
    ),
    "content-type-not-a-media-type": (  # whitespace around "=" (RFC 9110 5.6.6)
        lambda app: RewriteHeader(
            app,
            "/experiments/assignment-counts",
            b"content-type",
            lambda v: b"application/json; charset = utf-8",
        ),
        "test_fuzz and assignment-counts and not credentials and not experimentId",
        "EXP-RESPONSE-CONTENT-TYPE-JSON",
        "content_type_grammar",
    ),
    "405-without-allow": (  # RFC 9110 15.5.6: a 405 MUST carry Allow
        lambda app: DropOn405(app, "/sdk/v2/status", b"allow"),
        "test_fuzz and status and not credentials",
        "ERR-405-ALLOW",
        "unsupported_method",
    ),
    "500-on-assignment-counts": (
        lambda app: ServerErrorOn(app, "/experiments/assignment-counts"),
        "test_fuzz and assignment-counts and not credentials and not experimentId",
        "ERR-NO-SERVER-ERROR",
        "not_a_server_error",
    ),
}


# Found by the engine's coverage phase (an unlisted method is one of its scenarios), which the
# smoke tier leaves out.
NEEDS_COVERAGE = frozenset({"405-without-allow"})
COVERAGE_TIER = "pr"


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_planted_defect_is_reported_with_its_requirement(tmp_path: Path, defect: str) -> None:
    wrap, selection, requirement, check = DEFECTS[defect]
    tier = COVERAGE_TIER if defect in NEEDS_COVERAGE else "smoke"
    with serve(tmp_path, wrap=wrap) as server:
        result = run_stage(server, tmp_path / "reports", tier, extra=["-k", selection])
        credentials = yaml.safe_load(Path(server.profile_path).read_text("utf-8"))["credentials"]
    assert result.report, result.output
    assert result.returncode != 0
    broken = result.requirement(requirement)
    assert broken["outcome"] == "fail", broken
    evidence = [e for e in broken["evidence"] if e.get("check") == check]
    assert evidence, broken["evidence"]
    assert evidence[0]["seed"] == 20261122
    assert evidence[0]["curl"].startswith("curl")
    secrets = [credentials["pat"], *(k["key"] for k in credentials["sdk_keys"])]
    assert not [secret for secret in secrets if secret in evidence[0]["curl"]]
    assert "$RCES_" in evidence[0]["curl"]  # a runnable reproduction, credentials as variables
    fuzz = next(s for s in result.report["stages"] if s["name"] == "fuzz")
    assert fuzz["tests"] >= 1
