"""Environment snapshots: built and stored on write, served from memory on read.

``rebuild(conn, application_id, environment_id)`` runs inside the caller's write transaction
and stores the status body, the bootstrap body (status plus documents and privacy paths) and
the snapshot hash. ``SnapshotCache`` serves them from memory, reloading after any committed
write (``Store.generation``) and rebuilding once when the experiments' ``expires_at`` passes.
Request handlers call ``cached`` on the event loop and ``get`` (SQLite) only on a worker thread.
Experiment code supplies its part through ``experiment_store.active_summaries`` (called through
the module, so tests can replace it), which returns ``experiment_summaries.ExperimentSummaries``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from refserver import experiment_store, pointer
from refserver.hashing import snapshot_hash
from refserver.store import Store
from refserver.timestamps import now_iso, parse_ts


@dataclass(frozen=True)
class Snapshot:
    """One environment's stored snapshot, ready to send."""

    hash: str
    status_body: bytes  # JSON object, no ``polling``
    bootstrap_body: bytes  # JSON object, no ``polling``
    expires_at: float | None  # epoch seconds

    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= time.time()


def privacy_paths(private_keys: list[str]) -> list[list[str]]:
    """JSON Pointers of private members as lists of key segments."""
    return [pointer.parse(p) for p in private_keys]


def build(conn: sqlite3.Connection, application_id: int, environment_id: int) -> dict[str, Any]:
    """The bootstrap payload of an environment (with ``hash``); status drops the documents."""
    rows = conn.execute(
        "SELECT id, name, alias, content_hash, document, private_keys FROM configurations"
        " WHERE application_id = ? AND environment_id = ? AND deleted_at IS NULL ORDER BY id",
        (application_id, environment_id),
    ).fetchall()
    experiments = experiment_store.active_summaries(conn, application_id, environment_id, now_iso())
    required = sorted(
        {
            str(prop)
            for summary in experiments.user + experiments.server
            for prop in summary.get("requiredProperties", [])
        }
    )
    status: dict[str, Any] = {
        "configurations": [
            {"id": r["id"], "name": r["name"], "alias": r["alias"], "hash": r["content_hash"]}
            for r in rows
        ],
        "primaryConfigurationId": rows[0]["id"] if rows else None,
        "experiments": {"user": experiments.user, "server": experiments.server},
        "requiredProperties": required,
    }
    digest = snapshot_hash(status)
    bootstrap = dict(status)
    bootstrap["configurations"] = [
        {
            **summary,
            "configuration": json.loads(r["document"]),
            "privacy": privacy_paths(json.loads(r["private_keys"])),
        }
        for summary, r in zip(status["configurations"], rows, strict=True)
    ]
    return {"hash": digest, **bootstrap, "_expires_at": experiments.expires_at}


def _dump(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def rebuild(conn: sqlite3.Connection, application_id: int, environment_id: int) -> None:
    """Recompute and store an environment's snapshot (call inside a write transaction)."""
    payload = build(conn, application_id, environment_id)
    expires_at = payload.pop("_expires_at")
    status = {
        **payload,
        "configurations": [
            {k: c[k] for k in ("id", "name", "alias", "hash")} for c in payload["configurations"]
        ],
    }
    conn.execute(
        "INSERT INTO snapshots (environment_id, application_id, hash, status_body,"
        " bootstrap_body, expires_at) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (environment_id) DO UPDATE SET application_id = excluded.application_id,"
        " hash = excluded.hash, status_body = excluded.status_body,"
        " bootstrap_body = excluded.bootstrap_body, expires_at = excluded.expires_at",
        (
            environment_id,
            application_id,
            payload["hash"],
            _dump(status),
            _dump(payload),
            expires_at,
        ),
    )


def _load_row(conn: sqlite3.Connection, environment_id: int) -> Snapshot | None:
    row = conn.execute(
        "SELECT hash, status_body, bootstrap_body, expires_at FROM snapshots"
        " WHERE environment_id = ?",
        (environment_id,),
    ).fetchone()
    if row is None:
        return None
    return Snapshot(
        hash=row["hash"],
        status_body=row["status_body"].encode("utf-8"),
        bootstrap_body=row["bootstrap_body"].encode("utf-8"),
        expires_at=_epoch(row["expires_at"]),
    )


def _epoch(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return parse_ts(text).timestamp()
    except ValueError:
        return 0.0  # unreadable: treat as expired, so the next read rebuilds once


class SnapshotCache:
    """Stored snapshots held in memory until the next committed write."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._entries: dict[int, tuple[int, Snapshot]] = {}
        self._lock = threading.Lock()

    def cached(self, environment_id: int) -> Snapshot | None:
        """The snapshot from memory when it is still current, else None (no SQLite: safe on
        the event loop; on None, call ``get`` on a worker thread)."""
        entry = self._entries.get(environment_id)
        if entry is not None and entry[0] == self._store.generation and not entry[1].expired():
            return entry[1]
        return None

    def get(self, application_id: int, environment_id: int) -> Snapshot:
        """The current snapshot of an environment (rebuilt if missing or expired)."""
        snap = self.cached(environment_id)
        if snap is not None:
            return snap
        with self._lock:
            generation = self._store.generation
            with self._store.read() as conn:
                snap_or_none = _load_row(conn, environment_id)
            if snap_or_none is None or snap_or_none.expired():
                with self._store.write() as conn:
                    rebuild(conn, application_id, environment_id)
                    snap_or_none = _load_row(conn, environment_id)
                # keep the generation read before: the next get reloads once, never stale
                assert snap_or_none is not None
                if snap_or_none.expired():  # a moment already past: do not rebuild per read
                    snap_or_none = replace(snap_or_none, expires_at=None)
            assert snap_or_none is not None
            self._entries[environment_id] = (generation, snap_or_none)
            return snap_or_none
