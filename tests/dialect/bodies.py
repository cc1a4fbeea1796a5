"""Reading and writing request bodies as the translation needs them (never raising)."""

from __future__ import annotations

import json
from typing import Any

from faulty.asgi import Request

ABSENT = object()  # no body, or one that is not JSON: passed on byte for byte


def parsed(request: Request) -> Any:
    """The JSON body, or ABSENT when there is none or it is not JSON (even nested too deep)."""
    if not request.body:
        return ABSENT
    try:
        return json.loads(request.body)
    except (ValueError, RecursionError):
        return ABSENT


def with_body(request: Request, data: Any) -> Request:
    if data is ABSENT:
        return request
    return request.replace(body=json.dumps(data).encode())
