"""The second dialect server: the first dialect, with every answer and request carried over the
line where no profile key reaches (``dialect2.choices``), served on a free port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dialect.choices import (
    BOOTSTRAP_KEYS,
    ERROR_FIELDS,
    HEADERS,
    VALIDATION_STATUS,
    dialect_name,
)
from dialect.experiments import suffix_of
from dialect.offsets import DEFAULT_TAKE
from dialect.refusals import with_message
from dialect.server import Dialect
from dialect.server import serve as serve_dialect
from faulty.asgi import Forward, Handler, Request, Response

from dialect2 import sidecar
from dialect2.choices import (
    ACTIVE_WORD,
    ASSIGNMENT_EXTRAS,
    BOOTSTRAP_ENTRY_EXTRAS,
    CONTEXT_PROPERTY_EXTRAS,
    EXPERIMENT_EXTRAS,
    NUMERIC,
    NUMERIC_MAX,
    PAGE_PARAM,
    RUNNING,
    SUMMARY_EXTRAS,
    kebab,
)
from refserver.runner import RunningServer

NUMERIC_HEADER = HEADERS["project-id"]
CODE = ERROR_FIELDS["errorCode"]
STATUS = dialect_name("status")
ITEMS = dialect_name("items")
TAKE, SKIP = dialect_name("limit_param"), dialect_name("offset_param")
FILTER = dialect_name("status_param")
EXPERIMENT_RECORDS = {("GET", ""), ("POST", ""), ("GET", "/{id}"), ("POST", "/{id}/terminate")}
ASSIGNMENT_RECORDS = {
    ("GET", "/{id}/assignments"),
    ("GET", "/{id}/members"),
    ("POST", "/{id}/assignments"),
    ("POST", "/{id}/assignments/unenroll"),
    ("POST", "/{id}/assignments/reactivate"),
}
PAGED = {("GET", ""), ("GET", "/{id}/assignments"), ("GET", "/{id}/members")}


def without(data: Any, names: tuple[str, ...]) -> Any:
    """An object without these fields (anything else unchanged)."""
    if not isinstance(data, dict):
        return data
    return {k: v for k, v in data.items() if k not in names}


def active_word(data: Any) -> Any:
    """An object whose status is the reference's active word, with the second dialect's."""
    if isinstance(data, dict) and data.get(STATUS) == RUNNING:
        return {**data, STATUS: ACTIVE_WORD}
    return data


def experiment_record(data: Any) -> Any:
    return active_word(without(data, EXPERIMENT_EXTRAS))


def summary(data: Any) -> Any:
    return without(data, SUMMARY_EXTRAS)


def assignment_record(data: Any) -> Any:
    return without(data, ASSIGNMENT_EXTRAS)


def each(data: Any, item: Any) -> Any:
    """A record, or a list answer with each item translated."""
    if isinstance(data, dict) and isinstance(data.get(ITEMS), list):
        return {**data, ITEMS: [item(i) for i in data[ITEMS]]}
    return item(data)


def snapshot(data: Any) -> Any:
    """A status or bootstrap answer: entries without privacy, summaries and assignments without
    the reference's extra fields."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if isinstance(out.get("configurations"), list):
        out["configurations"] = [without(e, BOOTSTRAP_ENTRY_EXTRAS) for e in out["configurations"]]
    experiments = out.get("experiments")
    if isinstance(experiments, dict):
        out["experiments"] = {
            kind: [summary(s) for s in listed] if isinstance(listed, list) else listed
            for kind, listed in experiments.items()
        }
    assignments = BOOTSTRAP_KEYS["assignments"][1]
    if isinstance(out.get(assignments), list):
        out[assignments] = [assignment_record(a) for a in out[assignments]]
    return out


def error_body(data: Any) -> Any:
    if isinstance(data, dict) and isinstance(data.get(CODE), str):
        return {**data, CODE: kebab(data[CODE])}
    return data


NUMERIC_MESSAGE = f"{NUMERIC_HEADER} must be a number greater than 0 and at most {NUMERIC_MAX}"
PAGE_MESSAGE = f"{PAGE_PARAM} must be a whole number from 1"
# What the inner servers refuse in their own order of checks (credentials first): a numeric
# header out of range, a page number that is none. Their refusal is then reworded.
OUT_OF_RANGE = "0"
NO_PAGE = "not-a-page"


def numeric_fine(value: str) -> bool:
    """Whether the numeric header is a number in (0, 9007199254740991] (spec 4.3)."""
    fine = len(value) <= 64 and NUMERIC.fullmatch(value) is not None
    return fine and 0 < float(value) <= NUMERIC_MAX


def paged(request: Request) -> Request:
    """Page-number paging over the first dialect's offsets; no status filter. A page that is no
    page number asks the first dialect for a page size it refuses (after the credentials)."""
    query = [(k, v) for k, v in request.query if k not in (SKIP, FILTER, PAGE_PARAM)]
    page = request.param(PAGE_PARAM)
    if page is not None:
        if not page.isascii() or not page.isdigit() or len(page) > 9 or int(page) < 1:
            query = [(k, v) for k, v in query if k != TAKE] + [(TAKE, NO_PAGE)]
        else:
            take = request.param(TAKE)
            size = int(take) if take is not None and take.isdigit() and len(take) < 10 else 0
            query.append((SKIP, str((int(page) - 1) * (size or DEFAULT_TAKE))))
    return request.replace(query=tuple(query))


class Dialect2:
    """The handler: ``await dialect2(request, forward)``."""

    def __init__(self) -> None:
        self.dialect = Dialect()

    async def __call__(self, request: Request, forward: Forward) -> Response:
        route: tuple[str, str] | None = None
        suffix = suffix_of(request.path) if request.path.startswith("/application/") else None
        if suffix is not None:
            route = (request.method, suffix)
        reworded = ""
        if request.path.startswith("/sdk/v2/"):
            value = request.header(NUMERIC_HEADER)
            if value is not None:
                fine = numeric_fine(value)
                reworded = "" if fine else NUMERIC_MESSAGE
                request = request.with_header(NUMERIC_HEADER, "1" if fine else OUT_OF_RANGE)
        if request.method == "PATCH" and "/v2/configuration/" in request.path:
            patch = sidecar.taken(request)
            request, reworded = patch.request, patch.refused
            forward = sidecar.handing_down(forward, patch.sidecar)
        if route in PAGED:
            request = paged(request)
            reworded = PAGE_MESSAGE if request.param(TAKE) == NO_PAGE else ""
        response = self.translated(request, route, await self.dialect(request, forward))
        if reworded and response.status == VALIDATION_STATUS:
            return with_message(response, reworded)
        return response

    def translated(
        self, request: Request, route: tuple[str, str] | None, response: Response
    ) -> Response:
        data = response.json()
        if response.status >= 400:
            return _with(response, error_body(data))
        if data is None:
            return response
        if request.path.startswith("/sdk/v2/"):
            return _with(response, snapshot(data))
        if route in EXPERIMENT_RECORDS:
            return _with(response, each(data, experiment_record))
        if route in ASSIGNMENT_RECORDS:
            return _with(response, each(data, assignment_record))
        if route == ("GET", "/context-properties"):
            return _with(response, each(data, lambda d: without(d, CONTEXT_PROPERTY_EXTRAS)))
        if route == ("GET", "/analytics-catalog"):
            return _with(response, each(data, active_word))
        return response


def _with(response: Response, data: Any) -> Response:
    if data is None or data == response.json():
        return response
    return response.replace(body=json.dumps(data, ensure_ascii=False).encode())


def serve(db: Path, profile: Path, handler: Handler | None = None) -> RunningServer:
    """Start the second dialect (or ``handler``, a variant of it) on 127.0.0.1."""
    return serve_dialect(db, profile, handler or Dialect2())
