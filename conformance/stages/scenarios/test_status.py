"""Scenarios: the status snapshot (spec 2.4, 4.3): shape, ETag, 304, hashes that move when due.

Other workers write to development while these run, so comparisons of whole-snapshot hashes
either bracket a read between two equal reads or run in production, which only the serialised
``production`` group writes.
"""

from __future__ import annotations

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
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import (
    Snapshots,
    configuration_entries,
    entry_of,
    etag_expected,
    etag_problem,
    etag_value,
    settled,
)
from conformance.errors import NotApplicable
from conformance.json_types import JsonValue
from conformance.oracles.shapes import expect_shape, status_entry_problems
from conformance.traffic.raw_socket import RawAnswer
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement
production_group = pytest.mark.xdist_group("production")


@requirement("SDK-STATUS-200-SNAPSHOT")
@pytest.mark.parametrize("environment", ["development", "production"])
def test_status_answers_a_snapshot(snapshots: Snapshots, environment: str) -> None:
    ids = ("SDK-STATUS-200-SNAPSHOT",)
    reply = snapshots.status(environment)
    expect_status(reply, 200, ids, "status did not answer 200")
    received = media_problem(reply.headers)
    expect(
        received is None,
        ids,
        "status 200 is not application/json",
        media_expected(),
        received or "",
        reply,
    )
    expect_shape("snapshot", json_object(reply, ids), ids, "status body is not a snapshot", reply)


@requirement("SDK-STATUS-MINIMAL-REQUEST")
def test_key_alone_is_enough(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-MINIMAL-REQUEST",)
    key = snapshots.key_covering("development").key
    reply = snapshots.client.status(key=key, instance_id=None)
    expect_status(reply, 200, ids, "a status poll with only the key was refused")
    expect_shape("snapshot", json_object(reply, ids), ids, "not a full snapshot", reply)


@requirement("SDK-STATUS-ETAG-EQUALS-HASH")
@pytest.mark.parametrize("environment", ["development", "production"])
def test_status_etag_is_the_hash(snapshots: Snapshots, environment: str) -> None:
    ids = ("SDK-STATUS-ETAG-EQUALS-HASH",)
    reply = snapshots.status(environment)
    body = snapshots.body(reply, ids)
    received = etag_problem(reply.headers, body.get("hash"))
    expect(
        received is None,
        ids,
        "the ETag is not an entity-tag carrying the body's hash",
        etag_expected(body.get("hash")),
        received or "",
        reply,
    )


@requirement("SDK-STATUS-NO-DOCUMENTS")
def test_status_entries_carry_hashes_not_documents(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-NO-DOCUMENTS",)
    configurations.create_ok("entry", {"secret": "document"}, ids=ids)
    reply = snapshots.status()
    body = snapshots.body(reply, ids)
    entries = body.get("configurations", [])
    if not isinstance(entries, list):
        raise violation(
            ids, "the snapshot has no array of configurations", "an array", repr(entries), reply
        )
    found = [
        f"entry {i}: {p}"
        for i, entry in enumerate(entries)
        for p in status_entry_problems(entry, snapshots.document_field)
    ]
    expect(
        not found, ids, "status entries are not id/name/alias/hash only", "", "; ".join(found[:3])
    )


@requirement("SDK-STATUS-LISTS-CONFIGURATIONS")
def test_status_lists_each_configuration_once(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-LISTS-CONFIGURATIONS",)
    records = [configurations.create_ok(f"listed-{n}", {"n": n}, ids=ids) for n in range(2)]
    body = snapshots.snapshot("development", ids)
    entries = configuration_entries(body, ids, "the development snapshot")
    for record in records:
        matching = [e for e in entries if e.get("id") == record["id"]]
        expect(
            len(matching) == 1
            and matching[0].get("name") == record.get("name")
            and matching[0].get("alias") == record.get("alias"),
            ids,
            "a configuration is not listed once with its record's id, name and alias",
            f"one entry id={record['id']!r} name={record.get('name')!r} "
            f"alias={record.get('alias')!r}",
            repr(matching),
        )


@requirement("SDK-STATUS-PRIMARY-CONFIG")
def test_primary_configuration_is_listed(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-PRIMARY-CONFIG",)
    configurations.create_ok("primary", {"p": 1}, ids=ids)
    body = snapshots.snapshot("development", ids)
    listed = [e.get("id") for e in configuration_entries(body, ids, "the development snapshot")]
    expect(
        body.get("primaryConfigurationId") in listed,
        ids,
        "primaryConfigurationId names no listed configuration",
        f"one of {listed[:10]}",
        repr(body.get("primaryConfigurationId")),
    )


# ------------------------------------------------------------------ conditional requests


def _conditional(snapshots: Snapshots, ids: tuple[str, ...], *, how: str) -> tuple[str, Reply]:
    """A conditional status request carrying the current hash, retried if the hash moved."""
    seen: list[tuple[str, JsonValue]] = []

    def attempt() -> tuple[str, Reply] | None:
        current = str(snapshots.snapshot("development", ids).get("hash"))
        reply = _send(snapshots, current, how=how)
        if reply.status != 200:
            return current, reply
        moved = json_object(reply, ids).get("hash")
        seen.append((current, moved))
        if moved == current:
            return current, reply  # a 200 for the very hash sent: the caller reports it
        return None

    found = settled(attempt)
    if found is None:
        raise violation(
            ids,
            "the development snapshot moved between two reads with nothing written",
            "the hash just read answers 304 (or at least the same snapshot) while no request of "
            "the suite is in flight",
            f"hash sent, hash answered: {seen[-1]!r} (the suite's traffic halted)",
        )
    return found


def _send(snapshots: Snapshots, current: str, *, how: str) -> Reply:
    if how == "if-none-match":
        return snapshots.status(headers={"If-None-Match": f'"{current}"'})
    return snapshots.status(params={"hash": current})


@requirement("SDK-STATUS-304-IF-NONE-MATCH", "SDK-STATUS-304-NO-BODY", "SDK-STATUS-304-ETAG")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_if_none_match_gives_304(snapshots: Snapshots) -> None:
    current, reply = _conditional(snapshots, ("SDK-STATUS-304-IF-NONE-MATCH",), how="if-none-match")
    expect_status(reply, 304, ("SDK-STATUS-304-IF-NONE-MATCH",), "current hash not answered 304")
    with IndependentChecks() as independent:
        independent.check(
            reply.content == b"",
            ("SDK-STATUS-304-NO-BODY",),
            "a 304 carried a body",
            "no body",
            reply.describe(),
            reply,
        )
        received = etag_problem(reply.headers, current)
        independent.check(
            received is None,
            ("SDK-STATUS-304-ETAG",),
            "a 304 did not repeat the current ETag as an entity-tag",
            etag_expected(current),
            received or "",
            reply,
        )
        _no_bytes_after_the_304_head(snapshots, independent)


def _no_bytes_after_the_304_head(snapshots: Snapshots, independent: IndependentChecks) -> None:
    """An HTTP client reads a 304 as bodiless whatever follows it; the wire shows a body.

    The current hash is read again for the plain-socket request and retried like any
    conditional read while other workers write (``settled``)."""
    environment = "development"
    ids = ("SDK-STATUS-304-IF-NONE-MATCH",)
    seen: list[str] = []

    def attempt() -> tuple[str, RawAnswer, str] | None:
        now = str(snapshots.snapshot(environment, ids).get("hash"))
        answer, curl = snapshots.client.raw_sdk(
            "/status",
            key=snapshots.key(environment).key,
            environment=environment,
            headers={"If-None-Match": f'"{now}"'},
        )
        seen.append(
            f"hash sent {now!r}, answered {answer.problem or answer.status} "
            f"with ETag {answer.headers.get('etag')!r}"
        )
        moved = answer.status == 200 and etag_value(answer.headers) != now
        return None if moved else (now, answer, curl)

    found = settled(attempt)
    if found is None:
        independent.check(
            False,
            ids,
            "the development snapshot moved between two reads with nothing written",
            "the hash just read answers 304 while no request of the suite is in flight",
            f"{seen[-1]} (the suite's traffic halted)",
        )
        return
    _, answer, curl = found
    if answer.status != 304:
        independent.check(
            False,
            ids,
            "the current hash was not answered 304 over a plain HTTP/1.1 socket",
            "304 for the current hash, as over HTTP",
            f"{answer.problem or f'HTTP {answer.status}'}; reproduce: {curl}",
        )
        return
    independent.check(
        not answer.after_head,
        ("SDK-STATUS-304-NO-BODY",),
        "a 304 carried a body on the wire",
        "nothing after the 304's header block (RFC 9112 section 6.3); HTTP clients drop it and "
        "the next answer on the connection starts with it",
        f"{len(answer.after_head)} bytes after the header block: {answer.after_head[:120]!r}; "
        f"reproduce: {curl} --raw",
    )


@requirement("SDK-STATUS-304-HASH-QUERY", "SDK-STATUS-304-NO-BODY")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_hash_query_gives_304(snapshots: Snapshots) -> None:
    _, reply = _conditional(snapshots, ("SDK-STATUS-304-HASH-QUERY",), how="query")
    expect_status(reply, 304, ("SDK-STATUS-304-HASH-QUERY",), "?hash=current not answered 304")
    expect(
        reply.content == b"",
        ("SDK-STATUS-304-NO-BODY",),
        "a 304 carried a body",
        "no body",
        reply.describe(),
        reply,
    )


@requirement("SDK-STATUS-200-ON-OTHER-HASH")
@pytest.mark.parametrize("how", ["if-none-match", "query"])
def test_other_hash_gives_the_full_snapshot(snapshots: Snapshots, how: str) -> None:
    ids = ("SDK-STATUS-200-ON-OTHER-HASH",)
    reply = _send(snapshots, "0" * 12 + "not-the-current-hash", how=how)
    expect_status(reply, 200, ids, "an outdated hash was not answered with the snapshot")
    expect_shape("snapshot", json_object(reply, ids), ids, "not a full snapshot", reply)


@requirement("SDK-STATUS-IF-NONE-MATCH-FORMS")
@pytest.mark.parametrize("form", ["list", "star", "weak"])
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_if_none_match_forms(snapshots: Snapshots, form: str) -> None:
    ids = ("SDK-STATUS-IF-NONE-MATCH-FORMS",)
    if not snapshots.profile.conditional.require_list_and_weak:  # the spec: "the last hash seen"
        raise NotApplicable("conditional.require_list_and_weak", "false")
    replies: list[Reply] = []

    def attempt() -> Reply | None:
        current = str(snapshots.snapshot("development", ids).get("hash"))
        value = {"list": f'"other", "{current}"', "star": "*", "weak": f'W/"{current}"'}[form]
        replies.append(snapshots.status(headers={"If-None-Match": value}))
        reply = replies[-1]
        raced = reply.status == 200 and json_object(reply, ids).get("hash") != current
        return None if raced else reply

    reply = settled(attempt) or replies[-1]
    expect_status(reply, 304, ids, f"If-None-Match as a {form} was not answered 304")


@requirement("SDK-STATUS-HASH-QUERY-EMPTY")
def test_empty_hash_query_is_refused(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-HASH-QUERY-EMPTY",)
    reply = snapshots.status(params={"hash": ""})
    expect(400 <= reply.status < 500, ids, "hash= was accepted", "a 4xx", reply.describe(), reply)


# ------------------------------------------------------------------ hashes over time


@requirement("SDK-STATUS-HASH-STABLE")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_hash_holds_without_writes(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-HASH-STABLE",)
    seen: list[JsonValue] = []

    def attempt() -> bool | None:
        seen.append(snapshots.snapshot("development", ids).get("hash"))
        seen.append(snapshots.snapshot("development", ids).get("hash"))
        return True if seen[-1] == seen[-2] else None

    expect(
        settled(attempt) is not None,
        ids,
        "consecutive polls never agreed on the hash, even with nothing written",
        "equal hashes from two back-to-back polls while no request of the suite is in flight",
        f"hashes read in pairs: {seen[-6:]!r} (the last pair with the suite's traffic halted)",
    )


@requirement("SDK-STATUS-HASH-MOVES-ON-WRITE")
@production_group
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_hash_moves_on_create_and_patch(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-HASH-MOVES-ON-WRITE",)
    before = snapshots.stable_hash("production", ids)
    record = configurations.create_ok("moves", {"v": 1}, ids=ids, environment="production")
    created = snapshots.snapshot("production", ids).get("hash")
    configurations.patch_ok(
        record["id"],
        [{"op": "replace", "path": "/v", "value": 2}],
        ids=ids,
        environment="production",
    )
    patched = snapshots.snapshot("production", ids).get("hash")
    with IndependentChecks() as independent:
        independent.check(
            created != before, ids, "create kept the hash", f"not {before!r}", repr(created)
        )
        independent.check(
            patched != created, ids, "patch kept the hash", f"not {created!r}", repr(patched)
        )


@requirement("SDK-STATUS-HASH-ENV-ISOLATED")
@production_group
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_write_leaves_other_environment_hash(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-HASH-ENV-ISOLATED",)
    before = snapshots.stable_hash("production", ids)
    record = configurations.create_ok("isolated", {"v": 1}, ids=ids)
    configurations.patch_ok(record["id"], [{"op": "replace", "path": "/v", "value": 2}], ids=ids)
    after = snapshots.snapshot("production", ids).get("hash")
    expect(
        after == before,
        ids,
        "a write in development moved production's hash",
        repr(before),
        repr(after),
    )


@requirement("SDK-STATUS-CONFIG-HASH-MOVES", "SDK-STATUS-CONFIG-HASH-OTHERS-STABLE")
def test_only_the_patched_configuration_hash_moves(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    changed = configurations.create_ok("changed", {"v": 1})
    untouched = configurations.create_ok("untouched", {"v": 1})
    before = snapshots.snapshot()
    configurations.patch_ok(changed["id"], [{"op": "replace", "path": "/v", "value": 2}])
    after = snapshots.snapshot()
    pairs = {
        name: (entry_of(before, r["id"]), entry_of(after, r["id"]))
        for name, r in (("changed", changed), ("untouched", untouched))
    }
    missing = sorted(
        f"{name} ({'before' if a is None else 'after'} the patch)"
        for name, (a, b) in pairs.items()
        if a is None or b is None
    )
    expect(
        not missing,
        (),
        "a created configuration is not listed in the development snapshot",
        "each configuration created in development listed in its snapshot "
        "(SDK-STATUS-LISTS-CONFIGURATIONS)",
        f"not listed: {', '.join(missing)}",
    )
    with IndependentChecks() as independent:
        old, new = pairs["changed"]
        independent.check(
            old["hash"] != new["hash"],  # type: ignore[index]
            ("SDK-STATUS-CONFIG-HASH-MOVES",),
            "the patched configuration kept its hash",
            f"a hash other than {old['hash']!r}",  # type: ignore[index]
            repr(new["hash"]),  # type: ignore[index]
        )
        old, new = pairs["untouched"]
        independent.check(
            old == new,
            ("SDK-STATUS-CONFIG-HASH-OTHERS-STABLE",),
            "an untouched configuration's entry changed",
            repr(old),
            repr(new),
        )


@requirement("SDK-STATUS-ENV-ISOLATION")
@production_group
def test_configuration_appears_only_in_its_environment(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("SDK-STATUS-ENV-ISOLATION",)
    made = {
        env: configurations.create_ok(f"in-{env}", {"env": env}, ids=ids, environment=env)["id"]
        for env in ("development", "production")
    }
    listed = {
        env: {
            e.get("id")
            for e in configuration_entries(snapshots.snapshot(env, ids), ids, f"the {env} snapshot")
        }
        for env in ("development", "production")
    }
    for env, other in (("development", "production"), ("production", "development")):
        expect(
            made[env] in listed[env] and made[env] not in listed[other],
            ids,
            f"a configuration created in {env} is not listed there only",
            f"id {made[env]} in {env}'s snapshot and not in {other}'s",
            f"in {env}: {made[env] in listed[env]}, in {other}: {made[env] in listed[other]}",
        )
