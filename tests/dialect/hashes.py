"""The dialect's hashes: BLAKE2b over the reference server's hash, and the table back to it."""

from __future__ import annotations

import hashlib
import re
import threading

from dialect.choices import HASH_DIGEST_BYTES

# A hash the dialect never issued: sent on to the reference server so that it matches nothing.
UNKNOWN_PREFIX = "unissued-"
_ENTITY_TAG = re.compile(r'\s*(W/)?"([^"]*)"\s*')


def dialect_hash(reference: str) -> str:
    """The dialect's spelling of a reference hash (40 lowercase hex digits)."""
    return hashlib.blake2b(reference.encode("utf-8"), digest_size=HASH_DIGEST_BYTES).hexdigest()


class HashTable:
    """Every hash the dialect has issued, so a client's hash can be turned back into refserver's."""

    def __init__(self) -> None:
        self._back: dict[str, str] = {}
        self._lock = threading.Lock()

    def issue(self, reference: str) -> str:
        """The dialect hash of ``reference``, remembered."""
        mine = dialect_hash(reference)
        with self._lock:
            self._back[mine] = reference
        return mine

    def reference(self, mine: str) -> str:
        """The reference hash behind a dialect hash; one that matches nothing if never issued."""
        with self._lock:
            found = self._back.get(mine)
        return found if found is not None else UNKNOWN_PREFIX + mine

    def if_none_match(self, value: str) -> str:
        """An If-None-Match (or If-Match) value with each entity tag's hash turned back."""
        if value.strip() == "*":
            return value
        parts = []
        for item in value.split(","):
            tag = _ENTITY_TAG.fullmatch(item)
            if tag is None:  # not an entity tag: a bare hash, passed on turned back
                parts.append(self.reference(item.strip()) if item.strip() else item)
                continue
            weak, inner = tag.group(1) or "", tag.group(2)
            parts.append(f'{weak}"{self.reference(inner)}"')
        return ", ".join(parts)


def strong_tag(value: str) -> str | None:
    """The hash of a single strong entity tag (``"<hash>"``), else None."""
    tag = _ENTITY_TAG.fullmatch(value)
    if tag is None or tag.group(1):
        return None
    return tag.group(2)
