"""A correct server that fills the spec's gaps with other names: the reference server behind a
renaming ASGI translator, and the target profile that declares those names.

The translator speaks the target's names on the wire and the reference server's behind it:
request headers, body fields and query parameters are renamed on the way in (a reference name
the target does not have is dropped, as a real server ignores a field it does not know), and on
the way out the creates answer 200 instead of 201, validation errors 422 instead of 400, error
bodies carry ``code``/``detail`` and the experiment payloads their own field names. Everything
it renames is in the tables below; ``DECLARED`` is the same choice as target profile keys.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

TESTS = str(Path(__file__).resolve().parents[3])
if TESTS not in sys.path:  # tests/faulty holds the ASGI plumbing of the one-defect servers
    sys.path.append(TESTS)

from faulty.asgi import FaultyApp, Forward, Request, Response  # noqa: E402

# header: target name -> reference name (profile key headers.*)
HEADERS: dict[str, str] = {
    "x-env": "environment",
    "x-instance": "server-id",
    "x-project": "project-id",
    "x-sdk": "sdkversion",
    "x-unit": "unit-id",
    "x-unit-kind": "unit-type",
    "x-unit-ctx": "unit-context",
}
# body field of a configuration request: target -> reference (bodies.create.*, bodies.patch.*)
CONFIGURATION_FIELDS: dict[str, str] = {
    "content": "configuration",
    "private": "privateKeys",
    "notes": "comments",
    "ops": "operations",
    "base": "baseHash",
    "order": "keyOrder",
}
# payload field of the experiment endpoints, both ways: target -> reference
EXPERIMENT_FIELDS: dict[str, str] = {
    "results": "items",
    "next": "nextCursor",
    "unit": "unitId",
    "changes": "changeset",
}
# query parameter of the experiment lists: target -> reference
QUERY: dict[str, str] = {"after": "cursor", "size": "limit"}
# error body fields: reference -> target
ERROR_FIELDS: dict[str, str] = {"errorCode": "code", "message": "detail"}
# status: reference -> target
STATUSES: dict[int, int] = {400: 422}
CREATED_AS = 200  # both creates answer 200 instead of 201

# The same choices as target profile keys.
DECLARED: dict[str, Any] = {
    "headers": {
        "environment": "x-env",
        "instance_id": "x-instance",
        "numeric": "x-project",
        "sdk_version": "x-sdk",
        "unit_id": "x-unit",
        "unit_type": "x-unit-kind",
        "unit_context": "x-unit-ctx",
    },
    "bodies": {
        "create": {"content": "content", "private_keys": "private", "comments": "notes"},
        "patch": {"operations": "ops", "base_hash": "base", "key_order": "order"},
    },
    "errors": {"code_field": "code", "message_field": "detail", "validation_status": 422},
    "statuses": {"create_configuration": CREATED_AS, "create_experiment": CREATED_AS},
    "experiment_payload": {
        "items": "results",
        "next_cursor": "next",
        "unit_id": "unit",
        "changeset": "changes",
        "cursor_param": "after",
        "limit_param": "size",
    },
}


def _renamed(data: Any, names: dict[str, str]) -> Any:
    """``data`` with every object key in ``names`` renamed, and every key that only the other
    side has dropped, at any depth."""
    if isinstance(data, list):
        return [_renamed(item, names) for item in data]
    if not isinstance(data, dict):
        return data
    other_side_only = set(names.values()) - set(names)
    return {
        names.get(key, key): _renamed(value, names)
        for key, value in data.items()
        if key not in other_side_only
    }


def _body_names(path: str) -> dict[str, str]:
    if "/v2/experiments" in path:
        return EXPERIMENT_FIELDS
    if "/v2/configuration" in path:
        return CONFIGURATION_FIELDS
    return {}


async def translate(request: Request, forward: Forward) -> Response:
    """The target's names in, the reference server's behind, the target's names out."""
    reference_only = set(HEADERS.values()) - set(HEADERS)
    headers = {
        HEADERS.get(name, name): value
        for name, value in request.headers.items()
        if name not in reference_only
    }
    query = tuple(
        (QUERY.get(name, name), value)
        for name, value in request.query
        if name not in set(QUERY.values())
    )
    changed = request.replace(headers=headers, query=query)
    names = _body_names(request.path)
    body = request.json()
    if names and isinstance(body, dict | list):
        changed = changed.with_json(_renamed(body, names))
    response = await forward(changed)
    status = STATUSES.get(response.status, response.status)
    if response.status == 201 and request.method == "POST":
        status = CREATED_AS
    data = response.json()
    if isinstance(data, dict | list):
        if response.status >= 400 and isinstance(data, dict):
            data = {ERROR_FIELDS.get(key, key): value for key, value in data.items()}
        elif "/v2/experiments" in request.path:
            data = _renamed(data, {ref: target for target, ref in EXPERIMENT_FIELDS.items()})
        response = response.with_json(data)
    return response.replace(status=status)


def wrap(app: Any) -> FaultyApp:
    return FaultyApp(app, translate)


def write_profile(reference_profile: Path, path: Path) -> Path:
    """The reference server's profile (its credentials and project) with ``DECLARED`` over it."""
    profile = yaml.safe_load(reference_profile.read_text("utf-8"))
    for section, values in DECLARED.items():
        merged = dict(profile.get(section) or {})
        for key, value in values.items():
            if isinstance(value, dict):
                merged[key] = {**(merged.get(key) or {}), **value}
            else:
                merged[key] = value
        profile[section] = merged
    path.write_text(yaml.safe_dump(profile, sort_keys=False), "utf-8")
    path.chmod(0o600)
    return path
