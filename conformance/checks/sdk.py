"""SDK endpoints as the scenarios drive them: snapshots by environment, hashes, stored documents."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from conformance.checks import expect, json_object, strip_quotes
from conformance.client import Client, Reply
from conformance.errors import NotMeasurable
from conformance.profile import SdkKey

RACE_RETRIES = 5
T = TypeVar("T")


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
            raise NotMeasurable(f"the profile has no SDK key scoped to {environment!r}")
        return key

    def key_covering(self, *environments: str) -> SdkKey:
        """A key whose scope includes every given environment (the narrowest such key)."""
        fitting = [
            k
            for k in self.profile.credentials.sdk_keys
            if all(e in k.environments for e in environments)
        ]
        if not fitting:
            raise NotMeasurable(f"the profile has no SDK key scoped to all of {environments}")
        return min(fitting, key=lambda k: len(k.environments))

    def status(self, environment: str = "development", **kw: Any) -> Reply:
        return self.client.status(key=self.key(environment).key, environment=environment, **kw)

    def bootstrap(self, environment: str = "development", **kw: Any) -> Reply:
        return self.client.bootstrap(key=self.key(environment).key, environment=environment, **kw)

    def body(
        self, reply: Reply, ids: Sequence[str] = (), what: str = "a 200 snapshot"
    ) -> dict[str, Any]:
        expect(reply.status == 200, ids, f"expected {what}", "HTTP 200", reply.describe(), reply)
        return json_object(reply, ids, what)

    def snapshot(self, environment: str = "development", ids: Sequence[str] = ()) -> dict[str, Any]:
        return self.body(self.status(environment), ids)

    def documents(
        self, environment: str = "development", ids: Sequence[str] = ()
    ) -> dict[Any, Any]:
        """Configuration id -> document, from a bootstrap without identity."""
        if not self.profile.capability("bootstrap"):
            raise NotMeasurable("reading stored documents needs the bootstrap capability")
        body = self.body(self.bootstrap(environment), ids, "a 200 bootstrap")
        return {
            entry.get("id"): entry.get(self.document_field)
            for entry in body.get("configurations", [])
            if isinstance(entry, dict)
        }

    def stable_hash(self, environment: str = "development", ids: Sequence[str] = ()) -> str:
        """The current snapshot hash, read twice in a row until two reads agree (others write)."""
        previous = None
        for _ in range(RACE_RETRIES):
            current = self.snapshot(environment, ids).get("hash")
            if current is not None and current == previous:
                return str(current)
            previous = current
        raise NotMeasurable(f"the {environment} snapshot hash never held still for two reads")


def no_snapshot(reply: Reply) -> bool:
    """True when the answer reveals no snapshot (no hash, no configurations)."""
    try:
        body = json_object(reply)
    except AssertionError:
        return True
    return "configurations" not in body and "hash" not in body


def bracketed(reference: Callable[[], T], other: Callable[[], T]) -> tuple[T, T]:
    """Read ``other`` between two equal reads of ``reference`` (retrying while others write).

    Returns (reference value, other value) from a quiet moment; compare them to decide."""
    for _ in range(RACE_RETRIES):
        before = reference()
        value = other()
        if reference() == before:
            return before, value
    raise NotMeasurable("the snapshot never held still long enough to compare (busy target?)")


def etag_value(reply: Reply) -> str | None:
    etag = reply.headers.get("etag")
    return None if etag is None else strip_quotes(etag)


def entry_of(snapshot: dict[str, Any], configuration_id: Any) -> dict[str, Any] | None:
    for entry in snapshot.get("configurations", []):
        if isinstance(entry, dict) and entry.get("id") == configuration_id:
            return entry
    return None
