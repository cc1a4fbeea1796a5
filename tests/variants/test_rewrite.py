"""The rewrites variants are made of (quick tier, no server): the order ``chained`` applies
handlers in, a request in the variant's names turned back (the reference's own dropped), the
variant pair's two modes, and a status change that touches only its operation."""

from __future__ import annotations

import asyncio
import json

from faulty.asgi import Request, Response, json_response

from variants.rewrite import (
    CONFIGURATION_LIST,
    chained,
    error_fields,
    error_status,
    handler,
    request_fields,
    status_answer,
)
from variants.variant import pair


def _request(
    method: str = "POST", path: str = "/application/1/v2/configuration", body: object = None
) -> Request:
    return Request(method, path, (), {}, json.dumps(body).encode() if body is not None else b"")


def _serve(make: object, request: Request, answer: Response) -> tuple[Request, Response]:
    seen: list[Request] = []

    async def forward(sent: Request) -> Response:
        seen.append(sent)
        return answer

    response = asyncio.run(make()(request, forward))  # type: ignore[operator]
    return seen[0], response


def test_chained_applies_the_first_handler_to_the_answer_last() -> None:
    refusal = json_response(404, {"errorCode": "EXPERIMENT_NOT_FOUND", "message": "m"})
    renamed_last = chained(
        handler(answer=error_fields({"errorCode": "code"})),
        handler(answer=error_status(404, 410)),
    )
    _, response = _serve(renamed_last, _request("GET"), refusal)
    assert response.status == 410 and "code" in response.json()
    renamed_first = chained(
        handler(answer=error_status(404, 410)),
        handler(answer=error_fields({"errorCode": "code"})),
    )
    _, response = _serve(renamed_first, _request("GET"), refusal)
    assert response.status == 404  # the status change no longer recognises the error answer


def test_a_request_in_the_variants_names_is_turned_back_and_the_reference_name_dropped() -> None:
    make = handler(rewrite=request_fields(CONFIGURATION_LIST, {"configuration": "content"}))
    sent, _ = _serve(
        make, _request(body={"name": "n", "content": {"a": 1}}), json_response(201, {})
    )
    assert sent.json() == {"name": "n", "configuration": {"a": 1}}
    sent, _ = _serve(
        make, _request(body={"name": "n", "configuration": {"a": 1}}), json_response(201, {})
    )
    assert sent.json() == {"name": "n"}  # the reference's name means nothing to the variant


def test_a_status_change_touches_only_its_operation() -> None:
    make = handler(answer=status_answer("POST", CONFIGURATION_LIST, 201, 200))
    _, response = _serve(make, _request(), json_response(201, {}))
    assert response.status == 200
    other = _request(path="/application/1/v2/experiments")
    _, response = _serve(make, other, json_response(201, {}))
    assert response.status == 201


def test_a_pair_is_the_change_undeclared_then_declared() -> None:
    undeclared, declared = pair(
        "x", "doc", handler(), {"statuses": {"create_configuration": 200}}, undeclared_gap="gap"
    )
    assert undeclared.differences == {"statuses.create_configuration"} and not undeclared.declare
    assert undeclared.kit_gap == "gap" and declared.kit_gap is None
    assert declared.name == "x-declared" and not declared.differences
    assert declared.declare == {"statuses": {"create_configuration": 200}}
    assert "CFG-CREATE-RECORD-SHAPE" in undeclared.keeps  # rests on the key
