"""SDK endpoints as the scenarios drive them: snapshots by environment, hashes, stored documents."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar, Unpack

from conformance.checks import expect, json_object, violation
from conformance.errors import NotConfigured
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.header_grammar import ENTITY_TAG, EntityTag, Problem, entity_tag
from conformance.oracles.json_equality import same_json
from conformance.profile.access import SdkKey
from conformance.session.serial_phase import require_serial_phase
from conformance.traffic.client import Client
from conformance.traffic.sdk_options import SdkCallOptions
from conformance.traffic.transcript import Reply

# Spec 4.3 (responses, 3) and 5: an environment alias outside the SDK key's scope is rejected
# with 403. The spec fixes this status, so no profile key changes it.
OUT_OF_SCOPE_STATUS = 403
SETTLE_ATTEMPTS = 3
SETTLE_PAUSE_SECONDS = 0.2
T = TypeVar("T")
U = TypeVar("U")


def settled(attempt: Callable[[], T | None]) -> T | None:
    """``attempt``'s result, or None when the target did not hold still.

    ``attempt`` answers None when the snapshot moved under it. Its test runs in the serial phase
    (``conformance.session.serial_phase``): no other request of the suite is in flight, so a move
    is the target's own. A target whose snapshot catches up with a write a moment late is given
    ``SETTLE_ATTEMPTS`` reads ``SETTLE_PAUSE_SECONDS`` apart; one that never holds still is
    judged by the caller."""
    require_serial_phase("a read that judges the snapshot holding still")
    for number in range(SETTLE_ATTEMPTS):
        if number:
            time.sleep(SETTLE_PAUSE_SECONDS)
        result = attempt()
        if result is not None:
            return result
    return None


class Snapshots:
    """Status and bootstrap reads with the profile's keys and header names."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.profile = client.profile

    @property
    def document_field(self) -> str:
        """The field of a bootstrap entry holding the document (not shown: a profile key)."""
        return self.profile.bootstrap_payload.document

    def key(self, environment: str = "development") -> SdkKey:
        key = self.profile.key_for(environment)
        if key is None:
            raise NotConfigured(
                "credentials.sdk_keys", f"the profile has no SDK key scoped to {environment!r}"
            )
        return key

    def key_covering(self, *environments: str) -> SdkKey:
        """A key whose scope includes every given environment (the narrowest such key)."""
        fitting = [
            k
            for k in self.profile.credentials.sdk_keys
            if all(e in k.environments for e in environments)
        ]
        if not fitting:
            raise NotConfigured(
                "credentials.sdk_keys",
                f"the profile has no SDK key scoped to all of {environments}",
            )
        return min(fitting, key=lambda k: len(k.environments))

    def status(self, environment: str = "development", **kw: Unpack[SdkCallOptions]) -> Reply:
        return self.client.status(key=self.key(environment).key, environment=environment, **kw)

    def bootstrap(self, environment: str = "development", **kw: Unpack[SdkCallOptions]) -> Reply:
        return self.client.bootstrap(key=self.key(environment).key, environment=environment, **kw)

    def body(
        self, reply: Reply, ids: Sequence[str] = (), what: str = "a 200 snapshot"
    ) -> JsonObject:
        expect(reply.status == 200, ids, f"expected {what}", "HTTP 200", reply.describe(), reply)
        return json_object(reply, ids, what)

    def snapshot(self, environment: str = "development", ids: Sequence[str] = ()) -> JsonObject:
        return self.body(self.status(environment), ids)

    def documents(
        self, environment: str = "development", ids: Sequence[str] = ()
    ) -> dict[object, JsonValue]:
        """Configuration id -> document, from a bootstrap without identity."""
        if not self.profile.capability("bootstrap"):
            raise NotConfigured(
                "capabilities.bootstrap",
                "reading stored documents needs the bootstrap endpoint, which the profile "
                "declares absent (capabilities.bootstrap: false)",
            )
        body = self.body(self.bootstrap(environment), ids, "a 200 bootstrap")
        return {
            entry.get("id"): entry.get(self.document_field)
            for entry in configuration_entries(body, ids, "the bootstrap")
        }

    def stable_hash(self, environment: str = "development", ids: Sequence[str] = ()) -> str:
        """The current snapshot hash, read twice in a row in the serial phase: two reads that
        disagree with nothing of the suite in flight break ``ids``."""
        seen: list[tuple[JsonValue, JsonValue]] = []

        def twice() -> str | None:
            first = self.snapshot(environment, ids).get("hash")
            second = self.snapshot(environment, ids).get("hash")
            seen.append((first, second))
            return str(first) if first is not None and same_json(first, second) else None

        found = settled(twice)
        if found is None:
            raise violation(
                ids,
                f"the {environment} snapshot hash moved with nothing written",
                "two back-to-back reads agree on the hash while no request of the suite "
                "is in flight",
                f"hash pairs read: {seen[-3:]!r} (the last pair with the suite's traffic halted)",
            )
        return found


def no_snapshot(reply: Reply) -> bool:
    """True when the answer reveals no snapshot (no hash, no configurations)."""
    try:
        body = json_object(reply)
    except AssertionError:
        return True
    return "configurations" not in body and "hash" not in body


def bracketed(
    reference: Callable[[], T], other: Callable[[], U], ids: Sequence[str]
) -> tuple[T, U]:
    """Read ``other`` between two equal reads of ``reference``, in the serial phase.

    Returns (reference value, other value); the caller compares them. A reference that moves
    with nothing of the suite in flight breaks ``ids`` (given ``settled``'s reads to catch up)."""
    seen: list[tuple[T, T]] = []

    def attempt() -> tuple[T, U] | None:
        before = reference()
        value = other()
        after = reference()
        seen.append((before, after))
        return (before, value) if after == before else None

    found = settled(attempt)
    if found is None:
        raise violation(
            ids,
            "the snapshot moved with nothing written",
            "two reads around a third agree while no request of the suite is in flight",
            f"read before and after: {_clip(repr(seen[-1]))}",
        )
    return found


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def etag_value(headers: Mapping[str, str]) -> str | None:
    """The opaque-tag of the ``ETag`` (weak or strong); None when there is no ETag or it is not
    an entity-tag (RFC 9110 8.8.3). ``headers``: lower-case names."""
    value = headers.get("etag")
    tag = None if value is None else entity_tag(value)
    return tag.opaque if isinstance(tag, EntityTag) else None


def etag_expected(hash_value: object) -> str:
    """The ``expected`` line of an ETag check: an entity-tag carrying ``hash_value``."""
    return f'ETag "{hash_value}" (or W/"{hash_value}"), an {ENTITY_TAG.expected}'


def etag_problem(headers: Mapping[str, str], hash_value: object) -> str | None:
    """None when ``ETag`` is an entity-tag (RFC 9110 8.8.3), weak or strong, whose opaque-tag is
    ``hash_value``; else what was received, naming the grammar rule when the value breaks it."""
    value = headers.get("etag")
    if value is None:
        return "no ETag"
    tag = entity_tag(value)
    if isinstance(tag, Problem):
        return str(tag)
    if tag.opaque != hash_value:
        return f"ETag {value!r}: opaque-tag {tag.opaque!r}"
    return None


def configuration_entries(
    body: Mapping[str, object], ids: Sequence[str], what: str
) -> list[JsonObject]:
    """The object entries of a snapshot's or bootstrap's ``configurations`` (absent: none); a
    value that is not an array violates ``ids``."""
    entries = body.get("configurations", [])
    if not isinstance(entries, list):
        raise violation(
            ids,
            f"{what} has no array of configurations",
            "configurations: an array of configuration entries",
            _clip(repr(entries)),
        )
    return [entry for entry in entries if isinstance(entry, dict)]


def entry_of(snapshot: Mapping[str, object], configuration_id: object) -> JsonObject | None:
    """The entry of ``configuration_id`` in a snapshot's configurations, or None."""
    entries = snapshot.get("configurations", [])
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("id") == configuration_id:
            return entry
    return None
