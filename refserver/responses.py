"""JSON success responses, written as compact UTF-8 exactly once."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response


def json_response(
    value: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """``application/json`` response of a JSON-ready value."""
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return Response(
        body.encode("utf-8"), status_code=status, media_type="application/json", headers=headers
    )
