"""The dialect's error answers: its statuses and its body fields, from the reference server's."""

from __future__ import annotations

import json
from typing import Any

from faulty.asgi import Response, json_response

from dialect.choices import (
    ERROR_FIELDS,
    FOREIGN_PROJECT_STATUS,
    MALFORMED_BODY_STATUS,
    TERMINATED_STATUS,
    VALIDATION_STATUS,
)

# The reference server's refusal of a token whose owner is not a member of the project (a
# viewer's write is refused with the same code and another message: that one stays 403).
NOT_A_MEMBER = (403, "PERMISSION_DENIED", "the token's owner has no rights on this project")

# (reference status, reference code or None for any) -> (dialect status, dialect code or None)
STATUSES: dict[tuple[int, str | None], tuple[int, str | None]] = {
    (400, "INVALID_JSON"): (MALFORMED_BODY_STATUS, "BODY_NOT_JSON"),
    (400, None): (VALIDATION_STATUS, None),
    (409, "INVALID_TRANSITION"): (TERMINATED_STATUS, "EXPERIMENT_ENDED"),
}


def refusal(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    """An error answer made by the dialect itself."""
    fields = {ERROR_FIELDS["errorCode"]: code, ERROR_FIELDS["message"]: message}
    return json_response(status, fields, headers)


def translated(response: Response) -> Response:
    """A reference error answer in the dialect's status and fields; other answers unchanged."""
    if response.status < 400:
        return response
    data = response.json()
    if not isinstance(data, dict) or "errorCode" not in data:
        return response
    code, message = str(data.get("errorCode")), str(data.get("message", ""))
    status = response.status
    if (status, code, message) == NOT_A_MEMBER:
        status, code = FOREIGN_PROJECT_STATUS, "PROJECT_NOT_FOUND"
        message = "project not found"
    else:
        status, new_code = STATUSES.get(
            (status, code), STATUSES.get((status, None), (status, None))
        )
        code = new_code or code
    body = {ERROR_FIELDS.get(k, k): v for k, v in data.items()}
    body.update({ERROR_FIELDS["errorCode"]: code, ERROR_FIELDS["message"]: message})
    return response.replace(status=status, body=json.dumps(body).encode())


def with_message(response: Response, message: str) -> Response:
    """A dialect error answer with its message replaced (the dialect's own reason)."""
    data: Any = response.json()
    if not isinstance(data, dict):
        return response
    data[ERROR_FIELDS["message"]] = message
    return response.with_json(data)
