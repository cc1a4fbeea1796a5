"""Who may call: personal access tokens (management, experiments) and SDK keys (``/sdk/v2``).

A PAT acts as its owner and never beyond the owner's role in the project: ``owner`` may read
and write, ``viewer`` may only read. The checks run in a fixed order, each with its own answer
(docs/reference-choices.md, "Authentication"):

    malformed or missing token 401 -> unknown token 401 -> unknown project 404
    -> not a member 403 -> viewer writing 403

Experiment routes call ``authorize_pat(request, store, application_id, write=...)`` and
``require_environment(request, conn, application_id)`` exactly like configuration routes.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request

from refserver.errors import ApiError
from refserver.inputs import parse_id
from refserver.store import Store

PAT_PATTERN = re.compile(r"Bearer svc_pat_[A-Za-z0-9_\-]+")
SDK_KEY_PATTERN = re.compile(r"(?:svc_pk_|sdk_)[A-Za-z0-9_\-]+")
ENVIRONMENT_ID_HEADER = "environment_id"

ROLE_CAN_WRITE: dict[str, bool] = {"owner": True, "viewer": False}


@dataclass(frozen=True)
class Principal:
    """The owner a personal access token acts for, and their role in one project."""

    owner_id: int
    owner_name: str
    application_id: int
    role: str


@dataclass(frozen=True)
class SdkKey:
    """An SDK key: the one project it reaches and the environment aliases in its scope."""

    key: str
    project_id: int
    environments: frozenset[str]


def authorize_pat(request: Request, store: Store, application_id: int, *, write: bool) -> Principal:
    """The principal behind ``Authorization: Bearer svc_pat_...`` for this project, or ApiError."""
    header = request.headers.get("authorization")
    if header is None or PAT_PATTERN.fullmatch(header) is None:
        raise ApiError(
            401,
            "UNAUTHENTICATED",
            "send 'Authorization: Bearer svc_pat_...' with a personal access token",
        )
    token = header[len("Bearer ") :]
    with store.read() as conn:
        owner = conn.execute(
            "SELECT owners.id, owners.name FROM access_tokens"
            " JOIN owners ON owners.id = access_tokens.owner_id WHERE access_tokens.token = ?",
            (token,),
        ).fetchone()
        if owner is None:
            raise ApiError(401, "INVALID_TOKEN", "the personal access token is not valid")
        project = conn.execute("SELECT id FROM projects WHERE id = ?", (application_id,)).fetchone()
        if project is None:
            raise ApiError(404, "PROJECT_NOT_FOUND", f"project {application_id} not found")
        membership = conn.execute(
            "SELECT role FROM memberships WHERE owner_id = ? AND project_id = ?",
            (owner["id"], application_id),
        ).fetchone()
    if membership is None:
        raise ApiError(403, "PERMISSION_DENIED", "the token's owner has no rights on this project")
    role = str(membership["role"])
    if write and not ROLE_CAN_WRITE.get(role, False):
        raise ApiError(403, "PERMISSION_DENIED", f"the token's owner is a {role} of this project")
    return Principal(int(owner["id"]), str(owner["name"]), application_id, role)


def require_environment(request: Request, conn: sqlite3.Connection, application_id: int) -> int:
    """The ``environment_id`` header as an environment of this project, or ApiError."""
    environment_id = parse_id(request.headers.get(ENVIRONMENT_ID_HEADER))
    if environment_id is None:
        raise ApiError(
            400, "INVALID_ENVIRONMENT_ID", "header environment_id must be a positive integer"
        )
    row = conn.execute(
        "SELECT id FROM environments WHERE id = ? AND project_id = ?",
        (environment_id, application_id),
    ).fetchone()
    if row is None:
        raise ApiError(
            404, "ENVIRONMENT_NOT_FOUND", f"environment {environment_id} not found in this project"
        )
    return environment_id


MISS_TTL_SECONDS = 5.0  # how long an unknown SDK key is answered 401 from memory
MAX_MISSES = 10_000  # unknown keys remembered at most (oldest forgotten first)


class SdkKeys:
    """Looks SDK keys up, remembering the valid ones and, briefly, the unknown ones.

    Keys are written only when a fresh database is provisioned, before serving, so a valid key
    stays valid. An unknown key is remembered for ``miss_ttl`` seconds and only while
    ``Store.generation`` has not moved (any write that changes cached state forgets them all),
    at most ``max_misses`` of them: a flood of bad keys no longer reaches SQLite on every call,
    and a key that appears later (even written by another process) is known within the TTL.
    ``cached`` never touches SQLite (safe on the event loop); ``authenticate`` may.
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.monotonic,
        miss_ttl: float = MISS_TTL_SECONDS,
        max_misses: int = MAX_MISSES,
    ) -> None:
        self._store = store
        self._clock = clock
        self._miss_ttl = miss_ttl
        self._max_misses = max_misses
        self._known: dict[str, SdkKey] = {}
        self._misses: OrderedDict[str, tuple[float, int]] = OrderedDict()  # until, generation
        self._lock = threading.Lock()

    def cached(self, header: str | None) -> SdkKey | None:
        """The key from memory; None when only SQLite can tell; ApiError 401 when known bad."""
        if header is None:
            raise ApiError(401, "UNAUTHENTICATED", "send the SDK key in the authorization header")
        known = self._known.get(header)
        if known is not None:
            return known
        if SDK_KEY_PATTERN.fullmatch(header) is None:
            raise ApiError(401, "INVALID_KEY", "the SDK key is not valid")
        miss = self._misses.get(header)
        if miss is not None and miss[0] > self._clock() and miss[1] == self._store.generation:
            raise ApiError(401, "INVALID_KEY", "the SDK key is not valid")
        return None

    def authenticate(self, header: str | None) -> SdkKey:
        """The key sent raw in ``authorization``, or ApiError 401."""
        found = self.cached(header)
        if found is not None:
            return found
        assert header is not None
        generation = self._store.generation  # before the read: a later write outdates the miss
        with self._store.read() as conn:
            row = conn.execute(
                "SELECT key, project_id, environments FROM sdk_keys WHERE key = ?", (header,)
            ).fetchone()
        if row is None:
            self._remember_miss(header, generation)
            raise ApiError(401, "INVALID_KEY", "the SDK key is not valid")
        found = SdkKey(
            key=str(row["key"]),
            project_id=int(row["project_id"]),
            environments=frozenset(json.loads(row["environments"])),
        )
        with self._lock:
            self._known[header] = found
        return found

    def _remember_miss(self, header: str, generation: int) -> None:
        now = self._clock()
        with self._lock:
            misses = self._misses
            misses.pop(header, None)
            while misses and (
                len(misses) >= self._max_misses or next(iter(misses.values()))[0] <= now
            ):
                misses.popitem(last=False)
            misses[header] = (now + self._miss_ttl, generation)

    def remembered_misses(self) -> int:
        """How many unknown keys are remembered (bounded by ``max_misses``)."""
        return len(self._misses)
