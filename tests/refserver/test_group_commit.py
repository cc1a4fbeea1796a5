"""refserver.group_commit over a real SQLite store: batching, isolation, durability, first tries."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from refserver.group_commit import GroupCommit
from refserver.store import Store

DDL = "CREATE TABLE IF NOT EXISTS items (name TEXT PRIMARY KEY, n INTEGER NOT NULL);"


@pytest.fixture
def items_store(tmp_path: Path) -> Iterator[Store]:
    """A bare store with one table of its own (nothing of the server's schema)."""
    store = Store(tmp_path / "g.db")
    store.apply_schema(DDL)
    yield store
    store.close()


def _insert(name: str) -> Callable[[sqlite3.Connection], str]:
    def work(conn: sqlite3.Connection) -> str:
        conn.execute("INSERT INTO items (name, n) VALUES (?, 0)", (name,))
        return name

    return work


def _names(store: Store) -> list[str]:
    with store.read() as conn:
        return [row["name"] for row in conn.execute("SELECT name FROM items ORDER BY name")]


def test_pieces_from_many_threads_commit_in_fewer_batches(items_store: Store) -> None:
    group = GroupCommit(items_store)
    release = threading.Event()

    def blocker(conn: sqlite3.Connection) -> None:
        release.wait(5)  # holds the writer while the others queue up

    first = group.submit(blocker)
    futures = [group.submit(_insert(f"n{i:03d}")) for i in range(50)]
    release.set()
    assert [f.result(5) for f in futures] == [f"n{i:03d}" for i in range(50)]
    first.result(5)
    assert group.batches < 51
    group.close()
    assert _names(items_store) == [f"n{i:03d}" for i in range(50)]


def test_a_failing_piece_is_undone_alone(items_store: Store) -> None:
    group = GroupCommit(items_store)
    release = threading.Event()
    hold = group.submit(lambda conn: release.wait(5))

    def fails(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO items (name, n) VALUES ('doomed', 0)")
        raise ValueError("nope")

    before = group.submit(_insert("before"))
    failing = group.submit(fails)
    after = group.submit(_insert("after"))
    release.set()
    hold.result(5)
    assert before.result(5) == "before" and after.result(5) == "after"
    with pytest.raises(ValueError, match="nope"):
        failing.result(5)
    group.close()
    assert _names(items_store) == ["after", "before"]


def test_later_pieces_see_earlier_ones(items_store: Store) -> None:
    group = GroupCommit(items_store)

    def bump(conn: sqlite3.Connection) -> int:
        conn.execute(
            "INSERT INTO items (name, n) VALUES ('c', 1) ON CONFLICT DO UPDATE SET n = n + 1"
        )
        return int(conn.execute("SELECT n FROM items WHERE name = 'c'").fetchone()[0])

    futures = [group.submit(bump) for _ in range(20)]
    assert sorted(f.result(5) for f in futures) == list(range(1, 21))
    group.close()


def test_generation_moves_only_when_asked(items_store: Store) -> None:
    quiet, loud = GroupCommit(items_store), GroupCommit(items_store, changes_cached_state=True)
    generation = items_store.generation
    quiet.submit(_insert("q")).result(5)
    assert items_store.generation == generation
    loud.submit(_insert("l")).result(5)
    assert items_store.generation == generation + 1
    quiet.close()
    loud.close()


def test_an_answered_first_try_opens_no_write_transaction(items_store: Store) -> None:
    group = GroupCommit(items_store)
    group.submit(_insert("x")).result(5)
    batches = group.batches

    def look(conn: sqlite3.Connection) -> str | None:
        row = conn.execute("SELECT name FROM items WHERE name = 'x'").fetchone()
        return None if row is None else "read"

    assert group.submit(_insert("never"), look).result(5) == "read"
    assert group.batches == batches
    # a first try that answers None falls through to the write
    assert group.submit(_insert("y"), lambda conn: None).result(5) == "y"
    assert group.batches == batches + 1
    group.close()
    assert _names(items_store) == ["x", "y"]


def test_close_finishes_queued_work_then_refuses(items_store: Store) -> None:
    group = GroupCommit(items_store)
    futures: list[Future[str]] = [group.submit(_insert(f"c{i}")) for i in range(5)]
    group.close()
    assert all(f.done() for f in futures)
    refused = group.submit(_insert("late"))
    with pytest.raises(RuntimeError):
        refused.result(1)
    assert _names(items_store) == [f"c{i}" for i in range(5)]
