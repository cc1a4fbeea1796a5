"""The SDK endpoints in the dialect: header names, hashes, rate limit, load-shedding hint."""

from __future__ import annotations

import json

from faulty.asgi import Forward, Request, Response

from dialect import payloads
from dialect.choices import HEADERS, SHED_HINT
from dialect.refusals import refusal, translated
from dialect.state import DialectState
from dialect.throttle import http_date_after

STATUS_PATH = "/sdk/v2/status"


def inbound(request: Request, state: DialectState) -> Request:
    """The reference request: dialect header names renamed back (reference names dropped), the
    client's hashes turned back into the reference server's."""
    headers = {k: v for k, v in request.headers.items() if k not in HEADERS}
    back = {dialect: ref for ref, dialect in HEADERS.items()}
    headers = {back.get(k, k): v for k, v in headers.items()}
    if "if-none-match" in headers:
        headers["if-none-match"] = state.hashes.if_none_match(headers["if-none-match"])
    query = tuple(
        (k, state.hashes.reference(v) if k == "hash" and v else v) for k, v in request.query
    )
    return request.replace(headers=headers, query=query)


def outbound(response: Response, state: DialectState, shedding: bool) -> Response:
    etag = response.headers.get("etag")
    if etag is not None:
        inner = etag.strip().removeprefix("W/").strip('"')
        response = response.with_header("etag", f'"{state.hashes.issue(inner)}"')
    if response.status != 200 or not response.body:
        return translated(response)
    data = payloads.snapshot(response.json(), state.hashes)
    if isinstance(data, dict):
        data.pop("polling", None)
        if shedding:
            data["polling"] = dict(SHED_HINT)
    return response.replace(body=json.dumps(data, ensure_ascii=False).encode())


def caller(request: Request) -> str:
    """The rate-limit bucket: the instance id alone (whatever the key), else the client address."""
    instance = request.header(HEADERS["server-id"])
    if instance is not None:
        return "instance:" + instance
    client = request.scope.get("client") or ("unknown", 0)
    return "address:" + str(client[0])


async def handle(request: Request, forward: Forward, state: DialectState) -> Response:
    state.meter.hit()
    shedding = state.meter.shedding()
    response = await forward(inbound(request, state))
    if request.path == STATUS_PATH and response.status in (200, 304):
        wait = state.buckets.take(caller(request))
        if wait is not None:
            return refusal(
                429,
                "RATE_LIMITED",
                "too many status polls from this instance",
                {"retry-after": http_date_after(wait)},
            )
    return outbound(response, state, shedding)
