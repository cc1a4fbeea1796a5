"""refserver.hashing: content and snapshot hashes."""

from __future__ import annotations

import hashlib

from refserver.hashing import content_hash, snapshot_hash


def test_content_hash_is_sha256_of_compact_json_in_stored_order() -> None:
    expected = hashlib.sha256('{"b":1,"a":"é"}'.encode()).hexdigest()
    assert content_hash({"b": 1, "a": "é"}) == expected
    assert content_hash({"a": "é", "b": 1}) != expected  # key order is content
    assert content_hash(None) == hashlib.sha256(b"null").hexdigest()


def test_snapshot_hash_sorts_keys_and_ignores_hash_and_polling() -> None:
    base = {"configurations": [], "primaryConfigurationId": None}
    digest = snapshot_hash(base)
    assert (
        digest == hashlib.sha256(b'{"configurations":[],"primaryConfigurationId":null}').hexdigest()
    )
    assert snapshot_hash({"primaryConfigurationId": None, "configurations": []}) == digest
    assert snapshot_hash({**base, "hash": "x", "polling": {"intervalSeconds": 30}}) == digest
    assert snapshot_hash({**base, "primaryConfigurationId": 1}) != digest
