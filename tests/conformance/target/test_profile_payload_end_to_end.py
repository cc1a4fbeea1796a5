"""End to end: a server that names its payloads differently conforms once its profile says so.

The reference server (uvicorn on 127.0.0.1, a real SQLite file) is wrapped in ``Renamed``, an ASGI
middleware that turns it into another implementation filling the spec's gaps differently:
experiment lists answer ``results`` and ``next`` (not ``items``/``nextCursor``) and page by
``?page=`` (``?cursor=`` is an unknown parameter: 400), and bootstrap entries carry their document
under ``document`` (not ``configuration``). ``conformance run`` is narrowed to the requirements
that read those names. With a profile declaring the names they all pass; with the reference
names they do not; with every name but the cursor parameter, the paged list fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
import yaml
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from refserver.runner import start_server
from tests.support.conformance_cli import run_conformance
from tests.support.profiles import merged
from tests.support.report_outcomes import requirement_outcomes

EXPERIMENTS = re.compile(r"^/application/\d+/v2/experiments(/.*)?$")
AFFECTED = (
    "EXP-LIST",
    "EXP-ANALYTICS-CATALOG",
    "EXP-ASSIGNMENT-COUNTS",
    "EXP-CONTEXT-PROPERTIES",
    "EXP-ASSIGNMENTS-LIST",
    "EXP-MEMBERS",
    "SDK-BOOTSTRAP-200-SNAPSHOT",
    "SDK-BOOTSTRAP-DOCUMENTS-CURRENT",
    "SDK-BOOTSTRAP-ID-MERGE",
)
# Judged through a renamed name: with the reference names these fail (the counts read them
# only on the way and are not measurable, never a pass).
NEED_NAMES = tuple(rid for rid in AFFECTED if rid != "EXP-ASSIGNMENT-COUNTS")
PAGED = ("EXP-LIST", "EXP-ASSIGNMENTS-LIST", "EXP-MEMBERS")
NAMES = {
    "experiment_payload": {"items": "results", "next_cursor": "next", "cursor_param": "page"},
    "bootstrap_payload": {"document": "document"},
    # One experiment per page, so every list is followed through the cursor parameter.
    "experiments": {"page_size_max": 1},
}


class Renamed:
    """The reference app with renamed list fields, cursor parameter and bootstrap document."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        listing = scope["type"] == "http" and scope["method"] == "GET"
        listing = listing and EXPERIMENTS.match(scope["path"]) is not None
        bootstrap = scope["type"] == "http" and scope["path"] == "/sdk/v2/bootstrap"
        if not (listing or bootstrap):
            await self.app(scope, receive, send)
            return
        if listing:
            query = parse_qsl(scope.get("query_string", b"").decode(), keep_blank_values=True)
            if any(name == "cursor" for name, _ in query):
                await answer(send, 400, {"errorCode": "INVALID_REQUEST", "message": "cursor?"})
                return
            renamed = [("cursor" if name == "page" else name, value) for name, value in query]
            scope = {**scope, "query_string": urlencode(renamed).encode()}
        start: Message = {}
        chunks: list[bytes] = []

        async def keep(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        body = b"".join(chunks)
        if start["status"] == 200 and body:
            data = json.loads(body)
            await answer(send, 200, lists(data) if listing else documents(data), start)
            return
        await send(start)
        await send({"type": "http.response.body", "body": body})


def lists(data: Any) -> Any:
    if isinstance(data, dict) and "items" in data:
        data["results"] = data.pop("items")
        if "nextCursor" in data:
            data["next"] = data.pop("nextCursor")
    return data


def documents(data: Any) -> Any:
    for entry in data.get("configurations", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict) and "configuration" in entry:
            entry["document"] = entry.pop("configuration")
    return data


async def answer(send: Send, status: int, data: Any, start: Message | None = None) -> None:
    body = json.dumps(data).encode()
    kept = [(k, v) for k, v in (start or {}).get("headers", []) if k.lower() != b"content-length"]
    if not any(k.lower() == b"content-type" for k, _ in kept):
        kept.append((b"content-type", b"application/json"))
    kept.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": kept})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("renamed-payloads")
    profile = folder / "written.yaml"
    server = start_server(folder / "ref.db", profile_path=profile, wrap=Renamed)
    try:
        yield str(server.base_url), profile
    finally:
        server.stop()


def run(target: tuple[str, Path], name: str, overrides: dict[str, Any]) -> dict[str, str]:
    """``conformance run`` on the affected requirements with the written profile + overrides."""
    base_url, written = target
    folder = written.parent / name
    folder.mkdir()
    profile = folder / "profile.yaml"
    data = merged(yaml.safe_load(written.read_text("utf-8")), overrides)
    profile.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    done = run_conformance(
        "run",
        "--base-url", base_url,
        "--profile", str(profile),
        "--requirements", ",".join(AFFECTED),
        "--report-dir", str(folder / "report"),
        "--workers", "0",
        "--quiet",
        timeout=300,
    )  # fmt: skip
    report = folder / "report" / "conformance.json"
    assert report.exists(), done.stdout[-2000:] + done.stderr[-2000:]
    return requirement_outcomes(json.loads(report.read_text("utf-8")))


def test_the_renamed_server_conforms_with_a_profile_naming_its_fields(
    target: tuple[str, Path],
) -> None:
    outcomes = run(target, "declared", NAMES)
    assert sorted(outcomes) == sorted(AFFECTED)
    assert {rid: o for rid, o in outcomes.items() if o != "pass"} == {}


def test_the_reference_names_do_not_certify_the_renamed_server(
    target: tuple[str, Path],
) -> None:
    outcomes = run(target, "reference-names", {})
    assert {rid: outcomes[rid] for rid in NEED_NAMES} == dict.fromkeys(NEED_NAMES, "fail")
    assert outcomes["EXP-ASSIGNMENT-COUNTS"] != "pass"


def test_the_cursor_parameter_must_be_the_declared_one(target: tuple[str, Path]) -> None:
    names = merged(NAMES, {})
    names["experiment_payload"] = {"items": "results", "next_cursor": "next"}  # cursor: reference
    outcomes = run(target, "reference-cursor", names)
    assert {rid: outcomes[rid] for rid in PAGED} == dict.fromkeys(PAGED, "fail")
    unpaged = ("EXP-CONTEXT-PROPERTIES", "SDK-BOOTSTRAP-200-SNAPSHOT", "SDK-BOOTSTRAP-ID-MERGE")
    assert {rid: outcomes[rid] for rid in unpaged} == dict.fromkeys(unpaged, "pass")
