"""Scenarios: bootstrap without identity (spec 1, 4.3): the status snapshot plus documents, 304."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from conformance.checks import (
    IndependentChecks,
    expect,
    expect_status,
    json_object,
    media_expected,
    media_problem,
    violation,
)
from conformance.checks.shapes import expect_shape
from conformance.drivers import alias_space as spaces
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import (
    Snapshots,
    entry_of,
    etag_expected,
    etag_problem,
    settled,
)
from conformance.errors import NotConfigured
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import json_difference, json_text, same_json
from conformance.oracles.validator_space import near_misses, quoted
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement
SUMMARY_FIELDS = ("id", "name", "alias", "hash")


def _without_documents(body: JsonObject) -> JsonObject:
    entries = body.get("configurations", [])
    return {
        "configurations": [
            {k: e.get(k) for k in SUMMARY_FIELDS} if isinstance(e, dict) else e for e in entries
        ]
        if isinstance(entries, Iterable)
        else entries,
        "primaryConfigurationId": body.get("primaryConfigurationId"),
        "experiments": body.get("experiments"),
        "requiredProperties": body.get("requiredProperties"),
    }


def _same_moment(
    snapshots: Snapshots, ids: tuple[str, ...], key: str, alias: str | None
) -> tuple[JsonObject, Reply]:
    """A bootstrap read between two status reads that agree (no write slipped in), all three
    with ``key`` and the alias form ``alias`` (None: no alias header)."""
    seen: list[tuple[JsonValue, JsonValue]] = []

    def status() -> JsonObject:
        return snapshots.body(snapshots.client.status(key=key, environment=alias), ids)

    def attempt() -> tuple[JsonObject, Reply] | None:
        before = status()
        reply = snapshots.client.bootstrap(key=key, environment=alias)
        after = status()
        seen.append((before.get("hash"), after.get("hash")))
        return (before, reply) if same_json(before.get("hash"), after.get("hash")) else None

    found = settled(attempt)
    if found is None:
        raise violation(
            ids,
            f"the snapshot ({spaces.shown(alias)}) moved around the bootstrap read with nothing "
            "written",
            "two status reads around a bootstrap agree while no request of the suite is in flight",
            f"hashes before and after: {seen[-1]!r} (the suite's traffic halted)",
        )
    return found


def _alias_forms(snapshots: Snapshots) -> list[tuple[str, str | None]]:
    """(key, alias form) for every alias form (the synonym and none included) with the
    narrowest key whose scope holds the environment it selects."""
    forms: list[tuple[str, str | None]] = []
    for alias, environment in spaces.SELECTS.items():
        fitting = [k for k in spaces.keys(snapshots) if environment in k.environments]
        if fitting:
            forms.append((min(fitting, key=lambda k: len(k.environments)).key, alias))
    return forms


@requirement("SDK-BOOTSTRAP-200-SNAPSHOT")
def test_bootstrap_answers_snapshot_with_documents(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-BOOTSTRAP-200-SNAPSHOT",)
    configurations.create_ok("boot", {"doc": 1}, ids=ids)
    reply = snapshots.bootstrap()
    expect_status(reply, 200, ids, "bootstrap did not answer 200")
    received = media_problem(reply.headers)
    expect(received is None, ids, "not application/json", media_expected(), received or "", reply)
    body = json_object(reply, ids)
    expect_shape("snapshot", body, ids, "bootstrap body is not a snapshot", reply)
    document = snapshots.document_field
    lacking = [
        e.get("id") for e in body["configurations"] if not isinstance(e, dict) or document not in e
    ]
    expect(
        not lacking,
        ids,
        "bootstrap entries lack their documents",
        f"every entry with {document!r}",
        f"entries without it: {lacking[:5]}",
        reply,
    )


@requirement("SDK-BOOTSTRAP-MATCHES-STATUS")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_bootstrap_is_status_plus_documents(snapshots: Snapshots) -> None:
    """With the same key and headers, for every alias form: bootstrap = status + documents."""
    ids = ("SDK-BOOTSTRAP-MATCHES-STATUS",)
    with IndependentChecks() as independent:
        for key, alias in _alias_forms(snapshots):
            status, reply = _same_moment(snapshots, ids, key, alias)
            boot = snapshots.body(reply, ids, "a 200 bootstrap")
            independent.check(
                same_json(_without_documents(status), _without_documents(boot)),
                ids,
                f"bootstrap without documents differs from status ({spaces.shown(alias)})",
                repr(_without_documents(status))[:600],
                repr(_without_documents(boot))[:600],
                reply,
            )


@requirement("SDK-BOOTSTRAP-HASH-EQUALS-STATUS")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_bootstrap_hash_is_the_status_hash(snapshots: Snapshots) -> None:
    """With the same key and headers, for every alias form: one snapshot hash."""
    ids = ("SDK-BOOTSTRAP-HASH-EQUALS-STATUS",)
    with IndependentChecks() as independent:
        for key, alias in _alias_forms(snapshots):
            status, reply = _same_moment(snapshots, ids, key, alias)
            boot = snapshots.body(reply, ids, "a 200 bootstrap")
            independent.check(
                same_json(status.get("hash"), boot.get("hash")),
                ids,
                f"bootstrap and status disagree on the hash ({spaces.shown(alias)})",
                repr(status.get("hash")),
                repr(boot.get("hash")),
                reply,
            )


# Types and member order are content: true is not 1, 1 is not 1.0, and no object is sorted.
TYPED_DOCUMENT: JsonObject = {
    "zeta": True,
    "one": 1,
    "oneFloat": 1.0,
    "alpha": {"yes": True, "count": 1, "ratio": 0.5, "none": None, "b": {"y": 1, "x": False}},
    "list": [1, 1.0, True, None, {"m": 1, "c": 2}],
}


@requirement("SDK-BOOTSTRAP-DOCUMENTS-CURRENT")
def test_bootstrap_documents_are_current(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    """Each document as the record last returned it: JSON types kept, and member order too when
    the target declares key order (the ``key_order`` capability: order is then content)."""
    ids = ("SDK-BOOTSTRAP-DOCUMENTS-CURRENT",)
    created = configurations.create_ok("current", TYPED_DOCUMENT, ids=ids)
    fresh = configurations.create_ok(
        "fresh", ["x", None, True, 1, 1.0, {"b": 1, "a": 2}, {}, [], [{}]], ids=ids
    )
    patched = configurations.patch_ok(
        created["id"],
        [
            {"op": "add", "path": "/alpha/b/w", "value": True},
            {"op": "replace", "path": "/one", "value": 2.0},
            {"op": "add", "path": "/list/-", "value": 3},
        ],
        ids=ids,
    )
    body = snapshots.body(snapshots.bootstrap(), ids, "a 200 bootstrap")
    document = snapshots.document_field
    ordered = snapshots.profile.capability("key_order")
    with IndependentChecks() as independent:
        for record in (patched, fresh):
            entry = entry_of(body, record["id"]) or {}
            served = entry.get(document, "(entry or document absent)")
            difference = json_difference(record["configuration"], served, ordered=ordered)
            independent.check(
                difference is None,
                ids,
                "a bootstrap document is not the configuration's current content",
                f"configuration {record['id']}: {json_text(record['configuration'], 300)}"
                + (" (member order included: capabilities.key_order)" if ordered else ""),
                f"{json_text(served, 300)}; {difference}",
            )


@requirement("SDK-BOOTSTRAP-ETAG-EQUALS-HASH")
def test_bootstrap_etag_is_the_hash(snapshots: Snapshots) -> None:
    ids = ("SDK-BOOTSTRAP-ETAG-EQUALS-HASH",)
    reply = snapshots.bootstrap()
    body = snapshots.body(reply, ids, "a 200 bootstrap")
    received = etag_problem(reply.headers, body.get("hash"))
    expect(
        received is None,
        ids,
        "the bootstrap ETag is not an entity-tag carrying the body's hash",
        etag_expected(body.get("hash")),
        received or "",
        reply,
    )


@requirement("SDK-BOOTSTRAP-304")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_bootstrap_304_for_current_hash(snapshots: Snapshots) -> None:
    """Hash-based 304 support (spec 1) over its space: the current hash in If-None-Match answers
    a bodiless 304 that repeats the current ETag (RFC 9110 15.4.5; spec 4.3 client rule 4); the
    same hash as ``?hash=`` (a transport the spec shows for status only) answers either such a
    304 or the current snapshot; a near miss of the current hash, in either transport, answers
    the current snapshot (only the current hash is "not modified")."""
    ids = ("SDK-BOOTSTRAP-304",)
    with IndependentChecks() as independent:
        for how, value in (("If-None-Match", quoted), ("?hash=", str)):
            current, reply = _with_current_hash(snapshots, ids, how, value)
            if how == "?hash=" and reply.status == 200:
                continue  # not a transport of bootstrap: the current snapshot is a right answer
            if not independent.check(
                reply.status == 304,
                ids,
                f"bootstrap with the current hash ({how}) was not a 304",
                "HTTP 304 without a body",
                reply.describe(),
                reply,
            ):
                continue
            independent.check(
                reply.content == b"",
                ids,
                f"the bootstrap 304 ({how}) carried a body",
                "no body",
                reply.describe(),
                reply,
            )
            received = etag_problem(reply.headers, current)
            independent.check(
                received is None,
                ids,
                f"the bootstrap 304 ({how}) did not repeat the current ETag",
                etag_expected(current),
                received or "",
                reply,
            )
        current = str(snapshots.body(snapshots.bootstrap(), ids, "a 200 bootstrap").get("hash"))
        for label, miss in near_misses(current):
            for how, sent in (("If-None-Match", quoted(miss)), ("?hash=", miss)):
                reply = _bootstrap_with(snapshots, how, sent)
                independent.check(
                    reply.status == 200,
                    ids,
                    f"bootstrap with the hash {label} ({how}) was answered as current",
                    "HTTP 200 with the current snapshot: only the current hash is 'not modified'",
                    reply.describe(),
                    reply,
                )


def _bootstrap_with(snapshots: Snapshots, how: str, value: str) -> Reply:
    if how == "If-None-Match":
        return snapshots.bootstrap(headers={"If-None-Match": value})
    return snapshots.bootstrap(params={"hash": value})


def _with_current_hash(
    snapshots: Snapshots, ids: tuple[str, ...], how: str, value: Callable[[str], str]
) -> tuple[str, Reply]:
    """A bootstrap carrying the hash just read (``value`` spells it for the transport ``how``),
    retried while the snapshot moves under it."""
    replies: list[tuple[str, Reply]] = []

    def attempt() -> tuple[str, Reply] | None:
        current = str(snapshots.body(snapshots.bootstrap(), ids, "a 200 bootstrap").get("hash"))
        reply = _bootstrap_with(snapshots, how, value(current))
        replies.append((current, reply))
        raced = reply.status == 200 and not same_json(json_object(reply, ids).get("hash"), current)
        return None if raced else (current, reply)

    return settled(attempt) or replies[-1]


@requirement("SDK-BOOTSTRAP-ENV-SCOPE-403")
def test_bootstrap_enforces_the_key_scope(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    """Every alias form naming an environment (the synonym and none included) outside a key's
    scope: 403 without documents on every bootstrap form (with identity too, when declared)."""
    ids = ("SDK-BOOTSTRAP-ENV-SCOPE-403",)
    aliases = ("development", "production", "studio", None)
    forms = spaces.endpoints(snapshots, status=False)

    def marker() -> object:
        return configurations.create_ok("alias-scope", {"marker": 1}, ids=ids)["id"]

    if not spaces.refused_outside(snapshots, aliases, forms, ids, marker):
        raise NotConfigured(
            "credentials.sdk_keys",
            "every profile key covers every environment: add a key scoped to fewer environments",
        )
