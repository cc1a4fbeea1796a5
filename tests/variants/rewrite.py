"""The rewrites a variant is made of: small functions over a buffered request or answer, and
``handler`` (and ``chained``) that put them in front of the reference app."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response

Rewrite = Callable[[Request], Request]
Answer = Callable[[Request, Response], Response]
Make = Callable[[], Handler]

CONFIGURATIONS = re.compile(r"/application/[^/]+/v2/configuration(/[^/]+)?")
CONFIGURATION_LIST = re.compile(r"/application/[^/]+/v2/configuration")
EXPERIMENTS = re.compile(r"/application/[^/]+/v2/experiments(/.*)?")
EXPERIMENT_LIST = re.compile(r"/application/[^/]+/v2/experiments")
BOOTSTRAP = re.compile(r"/sdk/v2/bootstrap")
STATUS = re.compile(r"/sdk/v2/status")
SDK = re.compile(r"/sdk/v2/.*")
ANY = re.compile(r".*")


def handler(rewrite: Rewrite | None = None, answer: Answer | None = None) -> Make:
    """A handler that rewrites the request before the reference app and its answer after."""

    def make() -> Handler:
        async def handle(request: Request, forward: Forward) -> Response:
            response = await forward(rewrite(request) if rewrite else request)
            return answer(request, response) if answer else response

        return handle

    return make


def chained(*makes: Make) -> Make:
    """Handlers one in front of the other (the first sees the client's request)."""

    def make() -> Handler:
        handlers = [m() for m in makes]

        def through(index: int, forward: Forward) -> Forward:
            if index == len(handlers):
                return forward

            async def call(request: Request) -> Response:
                return await handlers[index](request, through(index + 1, forward))

            return call

        async def handle(request: Request, forward: Forward) -> Response:
            return await through(0, forward)(request)

        return handle

    return make


def renamed_deep(data: Any, names: Mapping[str, str]) -> Any:
    """Every object's fields renamed at any depth (others kept)."""
    if isinstance(data, dict):
        return {names.get(k, k): renamed_deep(v, names) for k, v in data.items()}
    if isinstance(data, list):
        return [renamed_deep(v, names) for v in data]
    return data


def revalued_deep(data: Any, field: str, values: Mapping[str, str]) -> Any:
    """Every ``field`` holding a string in ``values`` given its new value, at any depth."""
    if isinstance(data, dict):
        out = {k: revalued_deep(v, field, values) for k, v in data.items()}
        if isinstance(out.get(field), str):
            out[field] = values.get(out[field], out[field])
        return out
    if isinstance(data, list):
        return [revalued_deep(v, field, values) for v in data]
    return data


def _is_error(response: Response) -> bool:
    data = response.json()
    return response.status >= 400 and isinstance(data, dict) and "errorCode" in data


def status_answer(method: str, path: re.Pattern[str], before: int, after: int) -> Answer:
    """``before`` answered ``after`` on one operation."""

    def answer(request: Request, response: Response) -> Response:
        if request.method == method and path.fullmatch(request.path) and response.status == before:
            return response.replace(status=after)
        return response

    return answer


def error_status(
    before: int, after: int, codes: frozenset[str] | None = None, but: frozenset[str] = frozenset()
) -> Answer:
    """A reference error answer of ``before`` (with a code in ``codes``; None: any, except
    ``but``) answered ``after``, body unchanged."""

    def answer(request: Request, response: Response) -> Response:
        if response.status != before or not _is_error(response):
            return response
        code = str(response.json().get("errorCode"))
        if (codes is None or code in codes) and code not in but:
            return response.replace(status=after)
        return response

    return answer


def error_message_status(before: int, after: int, code: str, message: str) -> Answer:
    """The one reference refusal with this code and message answered ``after``."""

    def answer(request: Request, response: Response) -> Response:
        data = response.json()
        if (
            response.status == before
            and _is_error(response)
            and (data.get("errorCode"), data.get("message")) == (code, message)
        ):
            return response.replace(status=after)
        return response

    return answer


def error_fields(names: Mapping[str, str]) -> Answer:
    """An error body's fields renamed (``errorCode`` -> ..., ``message`` -> ...)."""

    def answer(request: Request, response: Response) -> Response:
        if not _is_error(response):
            return response
        return response.with_json({names.get(k, k): v for k, v in response.json().items()})

    return answer


def body_fields(path: re.Pattern[str], names: Mapping[str, str], deep: bool = True) -> Answer:
    """A successful JSON answer's fields renamed on the paths matching ``path``."""

    def answer(request: Request, response: Response) -> Response:
        if response.status >= 400 or not path.fullmatch(request.path):
            return response
        data = response.json()
        if data is None:
            return response
        if deep:
            return response.with_json(renamed_deep(data, names))
        if isinstance(data, dict):
            return response.with_json({names.get(k, k): v for k, v in data.items()})
        return response

    return answer


def body_values(path: re.Pattern[str], field: str, values: Mapping[str, str]) -> Answer:
    """A successful JSON answer's ``field`` values replaced on the paths matching ``path``."""

    def answer(request: Request, response: Response) -> Response:
        if response.status >= 400 or not path.fullmatch(request.path):
            return response
        data = response.json()
        return response if data is None else response.with_json(revalued_deep(data, field, values))

    return answer


def request_fields(
    path: re.Pattern[str],
    names: Mapping[str, str],
    deep: bool = False,
    methods: tuple[str, ...] = ("POST", "PATCH"),
) -> Rewrite:
    """A request body in the variant's field names (``names``: reference -> variant) turned
    back into the reference's; the reference's own names mean nothing to the variant and are
    dropped (so the kit cannot pass by sending them)."""
    back = {v: k for k, v in names.items()}

    def strip(data: Any) -> Any:
        if isinstance(data, dict):
            kept = {k: v for k, v in data.items() if k not in names or k in back}
            return {back.get(k, k): (strip(v) if deep else v) for k, v in kept.items()}
        if isinstance(data, list) and deep:
            return [strip(v) for v in data]
        return data

    def rewrite(request: Request) -> Request:
        if request.method not in methods or not path.fullmatch(request.path):
            return request
        data = request.json()
        return request if data is None else request.with_json(strip(data))

    return rewrite


def request_headers(names: Mapping[str, str]) -> Rewrite:
    """The variant's header names (``names``: reference -> variant) turned back; the reference
    name itself is dropped."""

    def rewrite(request: Request) -> Request:
        for reference, mine in names.items():
            value = request.header(mine)
            request = request.with_header(reference, value)
        return request

    return rewrite


def request_params(path: re.Pattern[str], names: Mapping[str, str]) -> Rewrite:
    """Query parameters in the variant's names (reference -> variant) turned back."""
    back = {v: k for k, v in names.items()}

    def rewrite(request: Request) -> Request:
        if not path.fullmatch(request.path):
            return request
        query = tuple((back[k], v) for k, v in request.query if k in back) + tuple(
            (k, v) for k, v in request.query if k not in back and k not in names
        )
        return request.replace(query=query)

    return rewrite


def request_values(path: re.Pattern[str], param: str, values: Mapping[str, str]) -> Rewrite:
    """A query parameter's variant values (reference -> variant) turned back."""
    back = {v: k for k, v in values.items()}

    def rewrite(request: Request) -> Request:
        if not path.fullmatch(request.path):
            return request
        query = tuple(
            (k, back.get(v, v if v not in values else "\x00unknown")) if k == param else (k, v)
            for k, v in request.query
        )
        return request.replace(query=query)

    return rewrite


def headers_answer(change: Callable[[Response], Response]) -> Answer:
    def answer(request: Request, response: Response) -> Response:
        return change(response)

    return answer
