"""Group commit: many small write transactions from concurrent requests share one COMMIT.

With ``synchronous=FULL`` every COMMIT waits for the disk, and that wait, not the work, bounds
how many per-unit bootstraps a second the server can persist. ``GroupCommit`` runs submitted
work on one writer thread: it takes every piece of work waiting (up to ``MAX_BATCH``), runs each
inside its own SAVEPOINT of one ``Store.write()`` transaction, commits once, and only then
resolves each piece's future. So nothing is acknowledged before it is durable, the pieces run
strictly one after another (each sees the ones before it: exactly-once decisions stay
exactly-once), and a piece that raises is rolled back to its savepoint alone, its exception
going to its own caller. A failed COMMIT fails every piece of the batch.

A piece may come with a ``first_try``: read-only work run for the whole batch in one read
transaction before any write. When it answers (not None), that answer is the piece's and the
piece never reaches the write transaction; when every piece of a batch answers so, the batch
opens no write transaction at all. A piece whose ``first_try`` answers None runs its ``work``
in the write transaction as usual (and must decide again there: the read saw no lock).

``await group.run(work, first_try)`` from a request handler (the event loop never blocks on
SQLite); ``group.submit(...)`` from any thread; ``group.close()`` at shutdown.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from refserver.store import Store

MAX_BATCH = 64
T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]
Piece = tuple[Work, "Work | None", "Future[Any]"]  # work, first_try, its future
_STOP = object()


class GroupCommit:
    """One writer thread that commits queued work for a store in batches."""

    def __init__(self, store: Store, *, changes_cached_state: bool = False) -> None:
        self._store = store
        self._changes_cached_state = changes_cached_state  # passed to Store.write()
        self._queue: queue.SimpleQueue[Piece | object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._closed = False
        self.batches = 0  # committed write transactions (for tests and benchmarks)

    def submit(
        self,
        work: Callable[[sqlite3.Connection], T],
        first_try: Callable[[sqlite3.Connection], T | None] | None = None,
    ) -> Future[T]:
        """Queue a piece; the future resolves with ``first_try``'s answer (not None), else
        with ``work``'s after the COMMIT that made it durable."""
        future: Future[T] = Future()
        if self._closed:
            future.set_exception(RuntimeError("group commit is closed"))
            return future
        self._ensure_thread()
        self._queue.put((work, first_try, future))
        return future

    async def run(
        self,
        work: Callable[[sqlite3.Connection], T],
        first_try: Callable[[sqlite3.Connection], T | None] | None = None,
    ) -> T:
        """``submit`` awaited without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(work, first_try))

    def close(self) -> None:
        """Finish the queued work, then stop the writer thread (idempotent)."""
        self._closed = True
        with self._start_lock:
            thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(_STOP)
            thread.join()

    def _ensure_thread(self) -> None:
        if self._thread is not None:
            return
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="refserver-group-commit", daemon=True
                )
                self._thread.start()

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            batch = [first]
            stop = False
            while len(batch) < MAX_BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stop = True
                    break
                batch.append(item)
            self._commit(batch)  # type: ignore[arg-type]
            if stop:
                return

    def _commit(self, batch: list[Piece]) -> None:
        live = [piece for piece in batch if piece[2].set_running_or_notify_cancel()]
        live = self._first_tries(live)
        if not live:
            return
        outcomes: list[tuple[bool, Any]] = []
        try:
            with self._store.write(changes_cached_state=self._changes_cached_state) as conn:
                for work, _first_try, _future in live:
                    outcomes.append(_in_savepoint(conn, work))
        except BaseException as exc:  # the transaction or its COMMIT failed: nothing is durable
            for _work, _first_try, future in live:
                future.set_exception(exc)
            return
        self.batches += 1
        for (_work, _first_try, future), (ok, value) in zip(live, outcomes, strict=True):
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def _first_tries(self, batch: list[Piece]) -> list[Piece]:
        """Answer the pieces whose first try answers (one read transaction); the others."""
        if all(first_try is None for _work, first_try, _future in batch):
            return batch
        answers: list[tuple[bool, Any]] = []
        try:
            with self._store.read() as conn:
                for _work, first_try, _future in batch:
                    answers.append(_attempt(conn, first_try))
        except Exception:  # the read transaction itself failed: let every piece write
            return batch
        rest = []
        for piece, (ok, value) in zip(batch, answers, strict=True):
            if not ok:
                piece[2].set_exception(value)
            elif value is None:
                rest.append(piece)
            else:
                piece[2].set_result(value)
        return rest


def _attempt(conn: sqlite3.Connection, first_try: Work | None) -> tuple[bool, Any]:
    """(True, answer or None) or (False, exception) of one piece's first try."""
    if first_try is None:
        return True, None
    try:
        return True, first_try(conn)
    except Exception as exc:
        return False, exc


def _in_savepoint(conn: sqlite3.Connection, work: Work) -> tuple[bool, Any]:
    """(True, result) or (False, exception) of one piece, its changes undone if it raised."""
    conn.execute("SAVEPOINT piece")
    try:
        result = work(conn)
    except Exception as exc:
        conn.execute("ROLLBACK TO piece")
        conn.execute("RELEASE piece")
        return False, exc
    conn.execute("RELEASE piece")
    return True, result
