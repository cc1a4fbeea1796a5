"""SDK endpoints as the scenarios drive them: snapshots by environment, hashes, stored documents."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from conformance.checks import expect, json_object, strip_quotes, violation
from conformance.errors import NotConfigured
from conformance.profile import SdkKey
from conformance.traffic.client import Client, Reply
from conformance.traffic.pacing import TrafficGate

RACE_RETRIES = 5
# Spec 4.3 (responses, 3) and 5: an environment alias outside the SDK key's scope is rejected
# with 403. The spec fixes this status, so no profile key changes it.
OUT_OF_SCOPE_STATUS = 403
T = TypeVar("T")


def settled(gate: TrafficGate, attempt: Callable[[], T | None]) -> T | None:
    """``attempt``'s result from a quiet moment, or None if the target never held still.

    ``attempt`` answers None when a write raced it. Other workers of the run write while it
    runs, so it is tried ``RACE_RETRIES`` times, then once more with the run's traffic gate held
    alone: no request of the suite is in flight anywhere, so a race then is the target's own
    (its snapshot moves with nothing written), judged by the caller."""
    for _ in range(RACE_RETRIES):
        result = attempt()
        if result is not None:
            return result
    with gate.exclusive():
        return attempt()


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
            raise NotConfigured(
                "capabilities.bootstrap",
                "reading stored documents needs the bootstrap endpoint, which the profile "
                "declares absent (capabilities.bootstrap: false)",
            )
        body = self.body(self.bootstrap(environment), ids, "a 200 bootstrap")
        return {
            entry.get("id"): entry.get(self.document_field)
            for entry in body.get("configurations", [])
            if isinstance(entry, dict)
        }

    def stable_hash(self, environment: str = "development", ids: Sequence[str] = ()) -> str:
        """The current snapshot hash, read twice in a row until two reads agree (others write).

        Two reads that still disagree with the suite's traffic halted break ``ids``."""
        seen: list[Any] = []

        def twice() -> str | None:
            first = self.snapshot(environment, ids).get("hash")
            second = self.snapshot(environment, ids).get("hash")
            seen.append((first, second))
            return str(first) if first is not None and first == second else None

        found = settled(self.client.gate, twice)
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
    gate: TrafficGate,
    reference: Callable[[], T],
    other: Callable[[], T],
    ids: Sequence[str],
    agree: Callable[[T, T], bool] | None = None,
) -> tuple[T, T]:
    """Read ``other`` between two equal reads of ``reference`` (retrying while others write).

    Returns (reference value, other value) from a quiet moment; compare them to decide. A
    reference that moves even with the suite's traffic halted breaks ``ids``. ``agree``: the
    outcome the caller expects; a disagreement is read again, the last time with the suite's
    traffic halted, since another worker's write and its undoing (an experiment created and
    terminated) can fall between two equal reference reads."""
    seen: list[Any] = []

    def attempt(judge: Callable[[T, T], bool] | None) -> tuple[T, T] | None:
        before = reference()
        value = other()
        after = reference()
        seen.append((before, after))
        if after != before or (judge is not None and not judge(before, value)):
            return None
        return (before, value)

    found = settled(gate, lambda: attempt(agree))
    if found is None and agree is not None:
        with gate.exclusive():  # the suite halted: what disagrees now is the target's answer
            found = attempt(None)
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


def etag_value(reply: Reply) -> str | None:
    etag = reply.headers.get("etag")
    return None if etag is None else strip_quotes(etag)


def entry_of(snapshot: dict[str, Any], configuration_id: Any) -> dict[str, Any] | None:
    for entry in snapshot.get("configurations", []):
        if isinstance(entry, dict) and entry.get("id") == configuration_id:
            return entry
    return None
