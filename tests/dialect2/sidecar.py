"""The second dialect's key-order sidecar: entries that name their objects by JSON Pointer, read
by the second dialect itself and handed to the reference server under the first dialect without
loss (the first dialect's dotted paths cannot spell every pointer: ``/``, the one empty key, would
read as the root)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dialect.bodies import parsed, with_body
from dialect.choices import KEY_ORDER_ENTRY, PATCH_KEYS
from faulty.asgi import Forward, Request, Response

REFERENCE_ORDER, ORDER = PATCH_KEYS["key_order"]  # the reference's field, the dialects' field
PATH, KEYS = KEY_ORDER_ENTRY
# RFC 6901: empty, or tokens after '/' where '~' escapes only '0' and '1'.
POINTER = re.compile(r"(/([^~/]|~[01])*)*")
# An order the first dialect refuses as malformed, in the reference server's order of checks
# (credentials first); the second dialect then says its own reason.
NOT_ENTRIES = "not entries"


class SidecarError(ValueError):
    """A key-order sidecar the second dialect refuses; the message says why."""


@dataclass(frozen=True)
class Taken:
    """A patch with its sidecar taken out: the request for the first dialect, the sidecar in the
    reference's shape to hand down (None: nothing to hand down) and the reason of a refusal."""

    request: Request
    sidecar: dict[str, Any] | None = None
    refused: str = ""


def pointer_map(entries: list[Any]) -> dict[str, Any]:
    """``[{"path": pointer, "keys": [...]}]`` -> ``{pointer: [...]}``, in entry order."""
    out: dict[str, Any] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {PATH, KEYS}:
            raise SidecarError(f"{ORDER}[{index}] must be an object with exactly {PATH}, {KEYS}")
        pointer = entry[PATH]
        if not isinstance(pointer, str):
            raise SidecarError(f"{ORDER}[{index}].{PATH} must be a string")
        if POINTER.fullmatch(pointer) is None:
            raise SidecarError(f"{ORDER}[{index}].{PATH} is not a JSON Pointer: {pointer!r}")
        if pointer in out:
            raise SidecarError(f"{ORDER}[{index}].{PATH} names an object already ordered")
        out[pointer] = entry[KEYS]
    return out


def taken(request: Request) -> Taken:
    """A patch request with its entries taken out (the first dialect reads every other field);
    anything but a list of entries (no order, null, a malformed one) is left to the first
    dialect, and a list it cannot take becomes an order the first dialect refuses."""
    body = parsed(request)
    if not isinstance(body, dict) or not isinstance(body.get(ORDER), list):
        return Taken(request)
    try:
        sidecar = pointer_map(body[ORDER])
    except SidecarError as error:
        return Taken(with_body(request, {**body, ORDER: NOT_ENTRIES}), refused=str(error))
    return Taken(with_body(request, {k: v for k, v in body.items() if k != ORDER}), sidecar)


def handing_down(forward: Forward, sidecar: dict[str, Any] | None) -> Forward:
    """``forward`` that writes the sidecar into the request the reference server receives."""
    if sidecar is None:
        return forward

    async def with_sidecar(request: Request) -> Response:
        body = parsed(request)
        if isinstance(body, dict):
            request = with_body(request, {**body, REFERENCE_ORDER: sidecar})
        return await forward(request)

    return with_sidecar
