"""refserver.auth.SdkKeys over a real store: valid keys and, briefly, unknown keys from memory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from refserver.auth import SdkKeys
from refserver.errors import ApiError
from refserver.provisioning import sdk_key
from refserver.store import Store
from tests.refserver.conftest import provisioned

UNKNOWN = "svc_pk_not-a-key-of-this-database"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountedStore(Store):
    """A real store that counts read transactions (how often a lookup reached SQLite)."""

    reads = 0

    def read(self) -> AbstractContextManager:  # type: ignore[override]
        self.reads += 1
        return super().read()


@pytest.fixture
def counted_store(tmp_path: Path) -> Iterator[CountedStore]:
    """The provisioned store of the shared ``store`` fixture, counting its reads."""
    store = provisioned(CountedStore(tmp_path / "keys.db"))
    yield store
    store.close()


def _code(keys: SdkKeys, header: str | None) -> str:
    with pytest.raises(ApiError) as raised:
        keys.authenticate(header)
    assert raised.value.status == 401
    return raised.value.code


def test_unknown_key_is_refused_from_memory_until_the_ttl(counted_store: CountedStore) -> None:
    clock = Clock()
    keys = SdkKeys(counted_store, clock=clock, miss_ttl=5.0)
    assert _code(keys, UNKNOWN) == "INVALID_KEY"
    reads = counted_store.reads
    assert [_code(keys, UNKNOWN) for _ in range(50)] == ["INVALID_KEY"] * 50
    assert counted_store.reads == reads  # no SQLite for the repeats
    clock.now += 5.0
    assert _code(keys, UNKNOWN) == "INVALID_KEY"
    assert counted_store.reads == reads + 1  # expired: asked again


def test_a_key_written_later_is_known_at_once(counted_store: CountedStore) -> None:
    keys = SdkKeys(counted_store, clock=Clock())
    assert _code(keys, UNKNOWN) == "INVALID_KEY"
    with counted_store.write() as conn:
        conn.execute(
            "INSERT INTO sdk_keys (key, project_id, environments, label) VALUES (?, 1, ?, 'late')",
            (UNKNOWN, json.dumps(["development"])),
        )
    found = keys.authenticate(UNKNOWN)
    assert (found.project_id, found.environments) == (1, frozenset({"development"}))


def test_remembered_misses_are_bounded(counted_store: CountedStore) -> None:
    keys = SdkKeys(counted_store, clock=Clock(), max_misses=8)
    for n in range(100):
        _code(keys, f"svc_pk_flood{n}")
    assert keys.remembered_misses() <= 8
    reads = counted_store.reads
    _code(keys, "svc_pk_flood99")  # the most recent ones are the remembered ones
    assert counted_store.reads == reads


def test_answers_are_unchanged(counted_store: CountedStore) -> None:
    keys = SdkKeys(counted_store, clock=Clock())
    with counted_store.read() as conn:
        valid, scope = sdk_key(conn, "all")
    for _ in range(2):  # first lookup and from memory alike
        assert _code(keys, None) == "UNAUTHENTICATED"
        assert _code(keys, "Bearer svc_pat_x") == "INVALID_KEY"
        assert _code(keys, UNKNOWN) == "INVALID_KEY"
        assert keys.authenticate(valid).environments == frozenset(scope)
    assert keys.cached(valid) is keys.authenticate(valid)
