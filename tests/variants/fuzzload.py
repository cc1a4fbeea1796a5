"""Correct-but-different variants of the reference server for the fuzz and load lanes, and the
faults beside them, as plain handlers over the reference (``faulty.asgi``): each changes one
thing the specification leaves open, or (a fault) breaks one thing it states.

- ``problem_json_errors``: error answers of the status, bootstrap and experiment endpoints in
  ``application/problem+json`` (RFC 9457), a JSON media type: the spec says "a JSON body" there.
  The configuration endpoints keep ``application/json`` (4.1 states it).
- ``hysteresis_shedder``: load shedding on above ``on`` status polls per second and off only
  once the rate has stayed under ``off`` for ``window`` seconds (declared by
  ``load.release_threshold``).
- ``null_polling`` (a fault): ``"polling": null`` in snapshots served without shedding; spec 2.4
  has the member present only while shedding, so a present null is a stray hint.
"""

from __future__ import annotations

import collections
import time
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response
from faulty.recipes import BOOTSTRAP, EXPERIMENTS, SNAPSHOT, STATUS, edit_json, either

PROBLEM_JSON = "application/problem+json"
HINT = {"intervalSeconds": 30, "jitterRatio": 0.2}
JSON_ERRORS = either(STATUS, BOOTSTRAP, EXPERIMENTS)


async def problem_json_errors(request: Request, forward: Forward) -> Response:
    """Error answers where the spec says only "a JSON body" in another JSON media type."""
    response = await forward(request)
    if response.status < 400 or not JSON_ERRORS(request):
        return response
    return response.with_header("content-type", PROBLEM_JSON)


def hysteresis_shedder(on: float = 150.0, off: float = 75.0, window: float = 1.0) -> Handler:
    """Sheds (the polling hint on every snapshot) once the status and bootstrap rate over the
    last ``window`` passes ``on``; stops once it has stayed under ``off`` for ``window``."""
    sent: collections.deque[float] = collections.deque()
    state = {"shedding": False, "under_since": None}

    def edit(data: Any, request: Request) -> Any:
        now = time.monotonic()
        sent.append(now)
        while sent and sent[0] <= now - window:
            sent.popleft()
        rate = len(sent) / window
        if rate > on:
            state["shedding"], state["under_since"] = True, None
        elif state["shedding"]:
            if rate >= off:
                state["under_since"] = None
            elif state["under_since"] is None:
                state["under_since"] = now
            elif now - float(state["under_since"] or now) >= window:
                state["shedding"], state["under_since"] = False, None
        data.pop("polling", None)
        if state["shedding"]:
            data["polling"] = dict(HINT)
        return data

    return edit_json(SNAPSHOT, edit)


def _null_when_quiet(data: Any, request: Request) -> Any:
    data.setdefault("polling", None)
    return data


null_polling: Handler = edit_json(SNAPSHOT, _null_when_quiet)


def _detail_body(response: Response) -> Response:
    data = response.json()
    message = data.get("message", "refused") if isinstance(data, dict) else "refused"
    return response.with_json({"detail": message})


async def detail_errors(request: Request, forward: Forward) -> Response:
    """Error bodies of the SDK endpoints as FastAPI writes them, ``{"detail": ...}``: a JSON
    body without the reference's code and message fields (their names are the convention)."""
    response = await forward(request)
    if response.status < 400 or not SNAPSHOT(request):
        return response
    return _detail_body(response)
