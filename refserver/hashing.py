"""Content and snapshot hashes (lowercase hex SHA-256 over compact JSON).

``content_hash`` keeps the document's key order (key order is content); ``snapshot_hash`` sorts
keys and leaves out ``hash`` and ``polling``, so it changes exactly when the snapshot's content
changes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

EXCLUDED_FROM_SNAPSHOT_HASH = ("hash", "polling")


def compact(value: Any) -> str:
    """Compact JSON in the value's own key order (the stored form of documents)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(document: Any) -> str:
    """Hash of a configuration document in its stored key order."""
    return hashlib.sha256(compact(document).encode("utf-8")).hexdigest()


def snapshot_hash(snapshot: dict[str, Any]) -> str:
    """Hash of a snapshot payload, keys sorted, without ``hash`` and ``polling``."""
    body = {k: v for k, v in snapshot.items() if k not in EXCLUDED_FROM_SNAPSHOT_HASH}
    text = json.dumps(
        body, separators=(",", ":"), ensure_ascii=False, sort_keys=True, allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
