"""Unit tests of the fault plumbing: buffering, rewriting, sub-requests, Content-Length."""

from __future__ import annotations

import asyncio
import json

import httpx
from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import JSONResponse
from starlette.routing import Route

from faulty.asgi import FaultyApp, Forward, Request, Response
from faulty.recipes import answer, chain, edit_json, edit_request, route


async def _echo(request: StarletteRequest) -> JSONResponse:
    body = await request.body()
    return JSONResponse(
        {
            "method": request.method,
            "path": request.url.path,
            "query": dict(request.query_params),
            "header": request.headers.get("x-probe"),
            "body": body.decode(),
        }
    )


APP = Starlette(routes=[Route("/{rest:path}", _echo, methods=["GET", "POST", "PATCH"])])


def _call(handler: object, method: str, url: str, **kw: object) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=FaultyApp(APP, handler))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.request(method, url, **kw)  # type: ignore[arg-type]

    return asyncio.run(go())


async def _through(request: Request, forward: Forward) -> Response:
    return await forward(request)


def test_passthrough_keeps_method_path_query_headers_and_body() -> None:
    reply = _call(_through, "POST", "/a/b?x=1&y=", headers={"x-probe": "p"}, content=b"hello")
    assert reply.json() == {
        "method": "POST",
        "path": "/a/b",
        "query": {"x": "1", "y": ""},
        "header": "p",
        "body": "hello",
    }


def test_json_rewrite_fixes_content_length() -> None:
    handler = edit_json(route("GET", "^/grow$"), lambda d, r: {**d, "extra": "x" * 500})
    reply = _call(handler, "GET", "/grow")
    assert reply.json()["extra"] == "x" * 500
    assert int(reply.headers["content-length"]) == len(reply.content)


def test_request_rewrite_and_route_filter() -> None:
    handler = edit_request(route("GET", "^/only$"), lambda r: r.with_header("x-probe", "set"))
    assert _call(handler, "GET", "/only").json()["header"] == "set"
    assert _call(handler, "GET", "/other").json()["header"] is None


def test_answer_replaces_the_server_and_chain_orders_handlers() -> None:
    refuse = answer(route("GET", "^/no$"), lambda r: Response(418, {}, b"teapot"))
    mark = edit_request(lambda r: True, lambda r: r.with_header("x-probe", "chained"))
    handler = chain(mark, refuse)
    assert _call(handler, "GET", "/no").status_code == 418
    assert _call(handler, "GET", "/yes").json()["header"] == "chained"


def test_sub_requests_reach_the_app_with_their_own_body() -> None:
    async def twice(request: Request, forward: Forward) -> Response:
        first = await forward(request.with_json({"n": 1}))
        second = await forward(request.replace(method="PATCH", body=b"two"))
        return Response(
            200,
            {"content-type": "application/json"},
            json.dumps(
                [first.json()["body"], second.json()["method"], second.json()["body"]]
            ).encode(),
        )

    assert _call(twice, "POST", "/s", content=b"x").json() == ['{"n": 1}', "PATCH", "two"]
