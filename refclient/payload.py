"""Reading response bodies: the status snapshot (spec 2.4) and refetched documents.

Unknown fields are ignored; a body that lacks what the client needs is a ``ProtocolError``
(retryable: the poller backs off and asks again).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from refclient.errors import ProtocolError


@dataclass(frozen=True)
class Summary:
    """One entry of a snapshot's ``configurations``."""

    id: int
    name: str | None
    alias: str | None
    hash: str


@dataclass(frozen=True)
class Hint:
    """A ``polling`` object: the minimum interval and its spread."""

    interval: float
    jitter_ratio: float


@dataclass(frozen=True)
class StatusBody:
    """A status (or bootstrap) snapshot as the client reads it."""

    hash: str
    configurations: tuple[Summary, ...]
    primary_configuration_id: int | None
    experiments: dict[str, Any]
    required_properties: tuple[str, ...]
    hint: Hint | None
    documents: dict[int, Document]


@dataclass(frozen=True)
class Document:
    """A refetched configuration document and its private paths."""

    document: Any
    privacy: tuple[tuple[str, ...], ...]


def json_object(body: bytes, what: str) -> dict[str, Any]:
    """``body`` as a JSON object, or a ``ProtocolError`` naming ``what``."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        raise ProtocolError(f"{what}: body is not JSON") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"{what}: body is not a JSON object")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _summary(entry: Any, what: str) -> Summary:
    if not isinstance(entry, dict) or not _is_int(entry.get("id")):
        raise ProtocolError(f"{what}: a configuration entry has no numeric id")
    if not isinstance(entry.get("hash"), str) or not entry["hash"]:
        raise ProtocolError(f"{what}: configuration {entry['id']} has no hash")
    return Summary(
        entry["id"],
        _optional_text(entry.get("name")),
        _optional_text(entry.get("alias")),
        entry["hash"],
    )


def hint_of(value: Any) -> Hint | None:
    """The ``polling`` hint, or None when the body carries none.

    An ``intervalSeconds`` that is not a finite positive number reads as 0 (the hint is there,
    the own cadence stays the minimum); a missing or non-numeric ``jitterRatio`` reads as 0.2,
    the observed default.
    """
    if not isinstance(value, dict):
        return None
    interval, ratio = value.get("intervalSeconds"), value.get("jitterRatio")
    seconds = float(interval) if isinstance(interval, int | float) else 0.0
    if isinstance(interval, bool) or not 0 < seconds < math.inf:
        seconds = 0.0
    spread = float(ratio) if isinstance(ratio, int | float) and not isinstance(ratio, bool) else 0.2
    return Hint(seconds, spread)


def privacy_of(value: Any) -> tuple[tuple[str, ...], ...]:
    """Private paths as tuples of key segments; anything else is dropped."""
    if not isinstance(value, list):
        return ()
    return tuple(
        tuple(path)
        for path in value
        if isinstance(path, list) and all(isinstance(s, str) for s in path)
    )


def status_body(body: bytes, etag: str | None, what: str = "status") -> StatusBody:
    """Read a snapshot; the hash comes from the body, else from the ETag."""
    data = json_object(body, what)
    digest = data.get("hash")
    if not isinstance(digest, str) or not digest:
        digest = etag
    if not digest:
        raise ProtocolError(f"{what}: no hash in the body or the ETag")
    entries = data.get("configurations")
    if not isinstance(entries, list):
        raise ProtocolError(f"{what}: configurations is not a list")
    summaries = tuple(_summary(entry, what) for entry in entries)
    if len({s.id for s in summaries}) != len(summaries):
        raise ProtocolError(f"{what}: a configuration id appears twice")
    documents = {
        entry["id"]: Document(entry.get("configuration"), privacy_of(entry.get("privacy")))
        for entry in entries
        if "configuration" in entry
    }
    primary = data.get("primaryConfigurationId")
    experiments = data.get("experiments")
    required = data.get("requiredProperties")
    return StatusBody(
        hash=digest,
        configurations=summaries,
        primary_configuration_id=primary if _is_int(primary) else None,
        experiments=experiments if isinstance(experiments, dict) else {},
        required_properties=tuple(p for p in required if isinstance(p, str))
        if isinstance(required, list)
        else (),
        hint=hint_of(data.get("polling")),
        documents=documents,
    )


def configuration_body(body: bytes, what: str) -> Document:
    """A per-configuration refetch: an object carrying ``configuration`` (and maybe ``privacy``)."""
    data = json_object(body, what)
    if "configuration" not in data:
        raise ProtocolError(f"{what}: no configuration field")
    return Document(data["configuration"], privacy_of(data.get("privacy")))


def unquote_etag(value: str | None) -> str | None:
    """The opaque tag of an ``ETag`` value (weak prefix and quotes dropped)."""
    if value is None:
        return None
    tag = value.strip()
    if tag.startswith("W/"):
        tag = tag[2:]
    if len(tag) >= 2 and tag[0] == tag[-1] == '"':
        tag = tag[1:-1]
    return tag or None
