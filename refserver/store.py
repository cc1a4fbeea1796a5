"""The SQLite store: one database file, WAL journal, serialised write transactions.

``Store.write()`` opens a ``BEGIN IMMEDIATE`` transaction and commits it on a clean exit (rolls
back on an exception); ``Store.read()`` gives a consistent read snapshot. Connections are
per thread, so the store is safe to use from uvicorn's thread pool. ``synchronous=FULL`` makes
every acknowledged write survive a crash or restart. ``Store.generation`` counts committed
writes that may change what in-memory caches hold; caches compare it to know when to reload.
Writes that touch only per-unit rows (assignments, context properties) pass
``changes_cached_state=False`` and leave it alone. ``write()`` is not re-entrant:
inside it, use the connection it yields (``read()`` on the same thread reuses that
transaction), never another ``write()``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

BUSY_TIMEOUT_MS = 10_000


class Store:
    """One SQLite database, shared by every request handler of one server."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._generation = 0
        self._closed = False
        with self.write() as conn:
            conn.execute("SELECT 1")

    @property
    def generation(self) -> int:
        """How many cache-changing write transactions have committed since this store opened."""
        return self._generation

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise RuntimeError("store is closed")
        conn = sqlite3.connect(
            self.path,
            isolation_level=None,  # we issue BEGIN/COMMIT ourselves
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_MS / 1000,
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.row_factory = sqlite3.Row
        self._local.conn = conn
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    @contextmanager
    def write(self, *, changes_cached_state: bool = True) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on error.

        ``changes_cached_state=False`` promises that nothing an in-memory cache holds (snapshots,
        keys, environments) changes, so ``generation`` stays as it is."""
        conn = self._connect()
        with self._write_lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            if changes_cached_state:
                self._generation += 1

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        conn = self._connect()
        if conn.in_transaction:  # nested inside write() on this thread: reuse it
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    def apply_schema(self, ddl: str) -> None:
        """Run idempotent DDL (``CREATE TABLE IF NOT EXISTS ...``) in one transaction."""
        if not ddl.strip():
            return
        with self.write() as conn:
            for statement in _statements(ddl):
                conn.execute(statement)

    def close(self) -> None:
        """Close every connection this store opened (call once, at shutdown)."""
        self._closed = True
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            with suppress(sqlite3.ProgrammingError):  # its thread may be gone
                conn.close()


def _statements(ddl: str) -> Iterator[str]:
    """Split a DDL script into complete statements (executescript would commit on its own)."""
    buffer = ""
    for line in ddl.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""
    if buffer.strip():
        yield buffer.strip()
