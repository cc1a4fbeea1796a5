"""Configuration create and patch in the dialect: body names, dotted paths, the key-order
entries, the base hash in If-Match, 200 on create, and the record's hash, paths and times."""

from __future__ import annotations

import json
from typing import Any

from faulty.asgi import Forward, Request, Response

from dialect import payloads
from dialect.bodies import ABSENT, parsed, with_body
from dialect.choices import CREATE_FIELDS, CREATE_STATUS, KEY_ORDER_ENTRY, PATCH_FIELDS
from dialect.hashes import HashTable, strong_tag
from dialect.paths import PathError, to_pointer
from dialect.refusals import translated, with_message
from dialect.state import DialectState

# A value the reference server refuses as malformed (400, answered 422 by the dialect) after its
# credential checks: the dialect's own shape errors keep the reference server's order of checks.
MALFORMED = "malformed by the dialect's rules"


class ShapeError(ValueError):
    """A dialect body part the dialect refuses; the message says which."""


def private_paths(value: Any) -> Any:
    """Dotted private paths -> JSON Pointers (anything not a list of strings passes on as is)."""
    if not isinstance(value, list):
        return value
    try:
        return [to_pointer(p) if isinstance(p, str) else p for p in value]
    except PathError as error:
        raise ShapeError(f"secretPaths: {error}") from None


def key_order(value: Any) -> Any:
    """``[{"path": dotted, "keys": [...]}]`` -> ``{pointer: [...]}``."""
    if value is None:
        return None
    path_field, keys_field = KEY_ORDER_ENTRY
    if not isinstance(value, list):
        raise ShapeError("order must be an array of {path, keys} entries")
    out: dict[str, Any] = {}
    for index, entry in enumerate(value):
        if not isinstance(entry, dict) or set(entry) != {path_field, keys_field}:
            raise ShapeError(f"order[{index}] must be an object with exactly path and keys")
        if not isinstance(entry[path_field], str):
            raise ShapeError(f"order[{index}].path must be a string")
        try:
            pointer = to_pointer(entry[path_field])
        except PathError as error:
            raise ShapeError(f"order[{index}].path: {error}") from None
        if pointer in out:
            raise ShapeError(f"order[{index}].path names an object already ordered")
        out[pointer] = entry[keys_field]
    return out


def create_body(body: Any) -> Any:
    data = payloads.inbound(body, CREATE_FIELDS)
    if isinstance(data, dict) and "privateKeys" in data:
        data["privateKeys"] = private_paths(data["privateKeys"])
    return data


def patch_body(body: Any, if_match: str | None, hashes: HashTable) -> Any:
    data = payloads.inbound(body, PATCH_FIELDS)
    if not isinstance(data, dict):
        return data
    data.pop("baseHash", None)
    if "keyOrder" in data:
        data["keyOrder"] = key_order(data["keyOrder"])
    if if_match is not None and if_match.strip() != "*":
        tag = strong_tag(if_match)
        # a weak or malformed validator never matches (RFC 9110: If-Match compares strongly)
        data["baseHash"] = hashes.reference(tag) if tag is not None else "unmatched"
    return data


async def handle(request: Request, forward: Forward, state: DialectState) -> Response:
    original = parsed(request)
    failure: str | None = None
    creating = request.method == "POST"
    body = original
    if original is not ABSENT:
        try:
            if creating:
                body = create_body(original)
            else:
                body = patch_body(original, request.header("if-match"), state.hashes)
        except ShapeError as error:
            failure = str(error)
            poisoned = {"privateKeys": MALFORMED} if creating else {"keyOrder": MALFORMED}
            body = {**original, **poisoned}
    request = with_body(request, body).with_header("if-match", None)
    response = await forward(request)
    if failure is not None and response.status == 400:
        return with_message(translated(response), failure)
    if response.status in (200, 201):
        record = payloads.configuration_record(response.json(), state.hashes)
        status = CREATE_STATUS if creating else response.status
        return response.replace(status=status, body=json.dumps(record).encode())
    return translated(response)
