"""Configuration management: create and patch configuration records (spec 4.1).

Both routes authenticate a PAT, check the ``environment_id`` header, validate the body, then
write in one ``BEGIN IMMEDIATE`` transaction that also rebuilds the environment's snapshot. The
``baseHash`` compare and the write share that transaction, so of concurrent patches from one
base exactly one wins.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from refserver import pointer, snapshot
from refserver.auth import authorize_pat, require_environment
from refserver.errors import ApiError
from refserver.hashing import compact, content_hash
from refserver.inputs import check_encodable, json_body, json_object_body_error, parse_id
from refserver.key_order import apply_sidecar, parse_sidecar
from refserver.patching import PatchConflict, PatchShapeError, apply, parse_operations
from refserver.responses import json_response
from refserver.slug import slugify
from refserver.state import AppState, state_of
from refserver.timestamps import now_iso

# The record's own fields (spec 2.1), in the order a record is written.
RECORD_FIELDS = (
    "id",
    "applicationId",
    "environmentId",
    "name",
    "alias",
    "description",
    "createdAt",
    "updatedAt",
    "deletedAt",
    "configuration",
    "isPrivate",
    "privateKeys",
    "comments",
    "contentHash",
)
NAME_MAX = 200


@dataclass
class NewConfiguration:
    """A checked create body."""

    name: str
    alias: str
    description: str = ""
    document: Any = None
    private_keys: list[str] = field(default_factory=list)
    comments: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def _invalid(message: str) -> ApiError:
    return ApiError(400, "INVALID_REQUEST", message)


def _name(body: dict[str, Any]) -> str:
    name = body.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX:
        raise _invalid(f"name is required: a string of 1 to {NAME_MAX} characters")
    return name


def _optional_string(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise _invalid(f"{key} must be a string")
    return value


def _private_keys(body: dict[str, Any]) -> list[str]:
    value = body.get("privateKeys")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise _invalid("privateKeys must be an array of JSON Pointer strings")
    for path in value:
        try:
            pointer.parse(path)
        except pointer.PointerSyntaxError as exc:
            raise _invalid(f"privateKeys: {exc}") from None
    return list(value)


def _comments(body: dict[str, Any]) -> dict[str, str]:
    value = body.get("comments")
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _invalid("comments must be an object of string values")
    return dict(value)


INPUT_FIELDS = ("name", "alias", "description", "configuration", "privateKeys", "comments")


def parse_create(body: Any) -> NewConfiguration:
    """A checked create body, or ApiError 400."""
    if not isinstance(body, dict):
        raise json_object_body_error()
    name = _name(body)
    alias = _optional_string(body, "alias")
    return NewConfiguration(
        name=name,
        alias=slugify(alias if alias is not None else name),
        description=_optional_string(body, "description") or "",
        document=body.get("configuration"),
        private_keys=_private_keys(body),
        comments=_comments(body),
        extra={k: v for k, v in body.items() if k not in INPUT_FIELDS and k not in RECORD_FIELDS},
    )


def insert_configuration(
    conn: sqlite3.Connection, application_id: int, environment_id: int, new: NewConfiguration
) -> int:
    """Insert a configuration and rebuild the snapshot; returns the new id."""
    now = now_iso()
    cursor = conn.execute(
        "INSERT INTO configurations (application_id, environment_id, name, alias, description,"
        " document, private_keys, comments, extra, content_hash, created_at, updated_at,"
        " deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
        (
            application_id,
            environment_id,
            new.name,
            new.alias,
            new.description,
            compact(new.document),
            compact(new.private_keys),
            compact(new.comments),
            compact(new.extra),
            content_hash(new.document),
            now,
            now,
        ),
    )
    snapshot.rebuild(conn, application_id, environment_id)
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def record(row: sqlite3.Row) -> dict[str, Any]:
    """The configuration record of spec 2.1, plus its additional properties."""
    private_keys = json.loads(row["private_keys"])
    result: dict[str, Any] = {
        "id": row["id"],
        "applicationId": row["application_id"],
        "environmentId": row["environment_id"],
        "name": row["name"],
        "alias": row["alias"],
        "description": row["description"],
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
        "deletedAt": row["deleted_at"],
        "configuration": json.loads(row["document"]),
        "isPrivate": bool(private_keys),
        "privateKeys": private_keys,
        "comments": json.loads(row["comments"]),
        "contentHash": row["content_hash"],
    }
    result.update(json.loads(row["extra"]))
    return result


def _load(
    conn: sqlite3.Connection, application_id: int, environment_id: int, configuration_id: int
) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM configurations WHERE id = ? AND application_id = ? AND environment_id = ?"
        " AND deleted_at IS NULL",
        (configuration_id, application_id, environment_id),
    ).fetchone()
    if row is None:
        raise ApiError(
            404, "CONFIGURATION_NOT_FOUND", f"configuration {configuration_id} not found"
        )
    return row


@dataclass(frozen=True)
class PatchRequest:
    """A checked patch body."""

    operations: list[Any]
    base_hash: str | None
    key_order: list[tuple[str, list[str], list[str]]]


def parse_patch(body: Any) -> PatchRequest:
    """A checked patch body, or ApiError 400."""
    if not isinstance(body, dict):
        raise json_object_body_error()
    base_hash = body.get("baseHash")
    if base_hash is not None and not isinstance(base_hash, str):
        raise _invalid("baseHash must be a string")
    try:
        # Every field is optional, and null counts as absent (as in the create body).
        given = body.get("operations")
        operations = parse_operations([] if given is None else given)
        key_order = parse_sidecar(body["keyOrder"]) if body.get("keyOrder") is not None else []
    except PatchShapeError as exc:
        raise ApiError(400, "INVALID_PATCH", str(exc)) from None
    return PatchRequest(operations, base_hash, key_order)


def patch_configuration_in(
    conn: sqlite3.Connection,
    application_id: int,
    environment_id: int,
    configuration_id: int,
    patch: PatchRequest,
) -> dict[str, Any]:
    """Apply a patch inside a write transaction; the updated record, or ApiError 404/409."""
    row = _load(conn, application_id, environment_id, configuration_id)
    if patch.base_hash is not None and patch.base_hash != row["content_hash"]:
        raise ApiError(
            409, "STALE_BASE_HASH", "baseHash is not the configuration's current contentHash"
        )
    if not patch.operations and not patch.key_order:
        return record(row)
    try:
        document = apply(json.loads(row["document"]), patch.operations)
        apply_sidecar(document, patch.key_order)
        check_encodable(document)
    except PatchConflict as exc:
        raise ApiError(409, "PATCH_NOT_APPLICABLE", str(exc)) from None
    new_hash = content_hash(document)
    if new_hash == row["content_hash"]:
        return record(row)
    conn.execute(
        "UPDATE configurations SET document = ?, content_hash = ?, updated_at = ? WHERE id = ?",
        (compact(document), new_hash, now_iso(), configuration_id),
    )
    snapshot.rebuild(conn, application_id, environment_id)
    return record(_load(conn, application_id, environment_id, configuration_id))


def _authorize(request: Request, state: AppState, application_id: int) -> int:
    authorize_pat(request, state.store, application_id, write=True)
    with state.store.read() as conn:
        return require_environment(request, conn, application_id)


def _guarded(work: Callable[[], Any]) -> Any:
    try:
        return work()
    except RecursionError:
        raise ApiError(400, "INVALID_JSON", "the document is nested too deeply") from None


async def create_configuration(request: Request) -> Response:
    """POST /application/{applicationId}/v2/configuration -> 201 record."""
    state = state_of(request)
    application_id = parse_id(request.path_params["applicationId"]) or 0
    environment_id = await run_in_threadpool(_authorize, request, state, application_id)
    new = parse_create(await json_body(request, state.settings.max_body_bytes))

    def work() -> dict[str, Any]:
        with state.store.write() as conn:
            configuration_id = insert_configuration(conn, application_id, environment_id, new)
            return record(_load(conn, application_id, environment_id, configuration_id))

    return json_response(await run_in_threadpool(_guarded, work), 201)


async def patch_configuration(request: Request) -> Response:
    """PATCH /application/{applicationId}/v2/configuration/{configurationId} -> 200 record."""
    state = state_of(request)
    application_id = parse_id(request.path_params["applicationId"]) or 0
    environment_id = await run_in_threadpool(_authorize, request, state, application_id)
    configuration_id = parse_id(request.path_params["configurationId"])
    if configuration_id is None:
        raise ApiError(404, "CONFIGURATION_NOT_FOUND", "configuration not found")
    patch = parse_patch(await json_body(request, state.settings.max_body_bytes))

    def work() -> dict[str, Any]:
        with state.store.write() as conn:
            return patch_configuration_in(
                conn, application_id, environment_id, configuration_id, patch
            )

    return json_response(await run_in_threadpool(_guarded, work), 200)
