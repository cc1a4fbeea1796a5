"""refserver.store: transactions, durability settings, thread safety."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from refserver.store import Store

DDL = "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);"


def test_wal_and_schema_is_idempotent(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    store.apply_schema(DDL)
    store.apply_schema(DDL)
    with store.read() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()


def test_write_rolls_back_on_error_and_counts_commits(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    store.apply_schema(DDL)
    before = store.generation
    with store.write() as conn:
        conn.execute("INSERT INTO counter (id, n) VALUES (1, 0)")
    with pytest.raises(RuntimeError), store.write() as conn:
        conn.execute("UPDATE counter SET n = 99")
        raise RuntimeError("boom")
    with store.read() as conn:
        assert conn.execute("SELECT n FROM counter").fetchone()[0] == 0
    assert store.generation == before + 1
    store.close()


def test_concurrent_increments_lose_nothing_and_survive_reopen(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    store.apply_schema(DDL)
    with store.write() as conn:
        conn.execute("INSERT INTO counter (id, n) VALUES (1, 0)")

    def work() -> None:
        for _ in range(50):
            with store.write() as conn:
                n = conn.execute("SELECT n FROM counter").fetchone()[0]
                conn.execute("UPDATE counter SET n = ?", (n + 1,))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    reopened = Store(tmp_path / "s.db")
    with reopened.read() as conn:
        assert conn.execute("SELECT n FROM counter").fetchone()[0] == 200
    reopened.close()
