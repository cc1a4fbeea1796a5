"""Scenarios: conditional status requests (spec 4.3 responses 2; RFC 9110 13.1.2), judged over
their space on both transports (If-None-Match, ``?hash=``) and every environment the profile's
SDK keys reach.

The current hash answers 304 with no body and the current ETag, in every form that got a 304.
Every other hash answers 200 with the snapshot: near misses of the current hash (a character
changed, a prefix, a suffix, another case: ``conformance.oracles.validator_space``), a hash that
was current before a write, another environment's current hash, and If-None-Match lists that do
not hold the current tag (under any profile). Lists holding the tag, ``*`` and weak tags must
answer 304 only when the profile requires them (``conditional.require_list_and_weak``).

A 304 for the current hash is judged in the serial phase, each read retried while the snapshot
moves (``settled``); a near miss, a stale or a foreign hash is never current, so a 200 is due
whatever other workers write (the stale hash is judged only once a read showed it moved).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from conformance.checks import IndependentChecks, expect, json_object, violation
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots, etag_expected, etag_problem, etag_value, settled
from conformance.errors import NotApplicable, NotMeasurable
from conformance.oracles.json_equality import same_json
from conformance.oracles.shapes import problems
from conformance.oracles.validator_space import lists_without, matching_forms, near_misses, quoted
from conformance.traffic.raw_socket import RawAnswer
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement
ENVIRONMENTS = ("development", "production")
TRANSPORTS = ("if-none-match", "query")
OTHER = ("SDK-STATUS-200-ON-OTHER-HASH",)
NO_BODY = ("SDK-STATUS-304-NO-BODY",)
ETAG = ("SDK-STATUS-304-ETAG",)


def reachable(snapshots: Snapshots) -> list[str]:
    """The environments some SDK key of the profile reaches (development when none does: its
    key's absence is then reported as not configured by the first read)."""
    found = [e for e in ENVIRONMENTS if snapshots.profile.key_for(e) is not None]
    return found or [ENVIRONMENTS[0]]


def send(snapshots: Snapshots, environment: str, how: str, value: str) -> Reply:
    """A status read carrying ``value``: the whole If-None-Match field, or the ``?hash=``."""
    if how == "if-none-match":
        return snapshots.status(environment, headers={"If-None-Match": value})
    return snapshots.status(environment, params={"hash": value})


FORMS = tuple(label for label, _ in matching_forms(""))


def form(label: str) -> Callable[[str], str]:
    """The If-None-Match field of the form ``label`` for a given current hash."""
    return lambda current: dict(matching_forms(current))[label]


def current_hash(snapshots: Snapshots, environment: str, ids: Sequence[str]) -> str:
    return str(snapshots.snapshot(environment, ids).get("hash"))


def for_current(
    snapshots: Snapshots,
    environment: str,
    ids: Sequence[str],
    how: str,
    value: Callable[[str], str],
) -> tuple[str, Reply]:
    """A read carrying ``value(current hash)`` (``how``: the transport), retried while the
    snapshot moves under it (serial phase)."""
    seen: list[tuple[str, object]] = []

    def attempt() -> tuple[str, Reply] | None:
        current = current_hash(snapshots, environment, ids)
        reply = send(snapshots, environment, how, value(current))
        if reply.status != 200:
            return current, reply
        answered = json_object(reply, ids).get("hash")
        seen.append((current, answered))
        return (current, reply) if same_json(current, answered) else None

    found = settled(attempt)
    if found is None:
        raise violation(
            ids,
            f"the {environment} snapshot moved between two reads with nothing written",
            "the hash just read answers 304 (or at least the same snapshot) while no request of "
            "the suite is in flight",
            f"hash sent, hash answered: {seen[-1]!r} (the suite's traffic halted)",
        )
    return found


def judge_304(independent: IndependentChecks, reply: Reply, current: str, form: str) -> None:
    """A 304 has no body and repeats the current ETag (RFC 9110 15.4.5), whatever form got it."""
    independent.check(
        reply.content == b"", NO_BODY, f"a 304 ({form}) carried a body", "no body", reply.describe()
    )
    received = etag_problem(reply.headers, current)
    independent.check(
        received is None,
        ETAG,
        f"a 304 ({form}) did not repeat the current ETag as an entity-tag",
        etag_expected(current),
        received or "",
        reply,
    )


# ------------------------------------------------------------------ the current hash: 304


@requirement("SDK-STATUS-304-IF-NONE-MATCH", "SDK-STATUS-304-NO-BODY", "SDK-STATUS-304-ETAG")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_if_none_match_gives_304(snapshots: Snapshots) -> None:
    """The quoted current tag answers 304 in every environment; every other RFC 9110 form that
    the target answers 304 is judged too (no body, the current ETag), required or not."""
    ids = ("SDK-STATUS-304-IF-NONE-MATCH",)
    with IndependentChecks() as independent:
        for environment in reachable(snapshots):
            current, reply = for_current(
                snapshots,
                environment,
                ids,
                "if-none-match",
                quoted,
            )
            independent.check(
                reply.status == 304,
                ids,
                f"If-None-Match with the current {environment} hash was not answered 304",
                "HTTP 304",
                reply.describe(),
                reply,
            )
            if reply.status == 304:
                judge_304(independent, reply, current, f"{environment}, the quoted tag")
            for label in FORMS:
                current, reply = for_current(
                    snapshots,
                    environment,
                    ids,
                    "if-none-match",
                    form(label),
                )
                if reply.status == 304:
                    judge_304(independent, reply, current, f"{environment}, {label}")
        _no_bytes_after_the_304_head(snapshots, independent)


def _no_bytes_after_the_304_head(snapshots: Snapshots, independent: IndependentChecks) -> None:
    """An HTTP client reads a 304 as bodiless whatever follows it; the wire shows a body.

    The current hash is read again for the plain-socket request and retried like any
    conditional read while other workers write (``settled``)."""
    environment = reachable(snapshots)[0]
    ids = ("SDK-STATUS-304-IF-NONE-MATCH",)
    seen: list[str] = []

    def attempt() -> tuple[str, RawAnswer, str] | None:
        now = current_hash(snapshots, environment, ids)
        answer, curl = snapshots.client.raw_sdk(
            "/status",
            key=snapshots.key(environment).key,
            environment=environment,
            headers={"If-None-Match": quoted(now)},
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
            f"the {environment} snapshot moved between two reads with nothing written",
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
        NO_BODY,
        "a 304 carried a body on the wire",
        "nothing after the 304's header block (RFC 9112 section 6.3); HTTP clients drop it and "
        "the next answer on the connection starts with it",
        f"{len(answer.after_head)} bytes after the header block: {answer.after_head[:120]!r}; "
        f"reproduce: {curl} --raw",
    )


@requirement("SDK-STATUS-304-HASH-QUERY", "SDK-STATUS-304-NO-BODY", "SDK-STATUS-304-ETAG")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_hash_query_gives_304(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-304-HASH-QUERY",)
    with IndependentChecks() as independent:
        for environment in reachable(snapshots):
            current, reply = for_current(
                snapshots,
                environment,
                ids,
                "query",
                str,
            )
            independent.check(
                reply.status == 304,
                ids,
                f"?hash= with the current {environment} hash was not answered 304",
                "HTTP 304",
                reply.describe(),
                reply,
            )
            if reply.status == 304:
                judge_304(independent, reply, current, f"{environment}, ?hash=")


@requirement("SDK-STATUS-IF-NONE-MATCH-FORMS")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_if_none_match_forms(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-IF-NONE-MATCH-FORMS",)
    if not snapshots.profile.conditional.require_list_and_weak:  # the spec: "the last hash seen"
        raise NotApplicable("conditional.require_list_and_weak", "false")
    with IndependentChecks() as independent:
        for environment in reachable(snapshots):
            for label in FORMS:
                _, reply = for_current(
                    snapshots,
                    environment,
                    ids,
                    "if-none-match",
                    form(label),
                )
                independent.check(
                    reply.status == 304,
                    ids,
                    f"If-None-Match as {label} of the current {environment} hash was not "
                    "answered 304",
                    "HTTP 304",
                    reply.describe(),
                    reply,
                )


# ------------------------------------------------------------------ every other hash: 200


def expect_snapshot(
    independent: IndependentChecks, reply: Reply, environment: str, how: str, what: str
) -> None:
    """A hash other than the current one answers 200 with the whole snapshot."""
    if not independent.check(
        reply.status == 200,
        OTHER,
        f"{what} was answered as current ({environment}, {how})",
        "HTTP 200 with the current snapshot: only the current hash is 'not modified'",
        reply.describe(),
        reply,
    ):
        return
    try:
        body = json_object(reply, OTHER, "a snapshot")
    except AssertionError:
        independent.check(False, OTHER, f"{what}: the 200 is no JSON object", "a snapshot", "")
        return
    found = problems("snapshot", body)
    independent.check(
        not found, OTHER, f"{what}: the 200 is not a full snapshot", "a snapshot", "; ".join(found)
    )


@requirement("SDK-STATUS-200-ON-OTHER-HASH")
@pytest.mark.parametrize("how", TRANSPORTS)
def test_near_misses_of_the_current_hash_give_the_snapshot(snapshots: Snapshots, how: str) -> None:
    with IndependentChecks() as independent:
        for environment in reachable(snapshots):
            current = current_hash(snapshots, environment, OTHER)
            for label, value in near_misses(current):
                sent = quoted(value) if how == "if-none-match" else value
                reply = send(snapshots, environment, how, sent)
                expect_snapshot(independent, reply, environment, how, f"the hash {label}")


@requirement("SDK-STATUS-200-ON-OTHER-HASH")
def test_lists_without_the_current_tag_give_the_snapshot(snapshots: Snapshots) -> None:
    """RFC 9110 13.1.2: a list matches only through one of its tags, under any profile."""
    with IndependentChecks() as independent:
        for environment in reachable(snapshots):
            current = current_hash(snapshots, environment, OTHER)
            for label, field in lists_without(current):
                reply = send(snapshots, environment, "if-none-match", field)
                expect_snapshot(
                    independent, reply, environment, "if-none-match", f"a list of {label}"
                )


@requirement("SDK-STATUS-200-ON-OTHER-HASH")
@pytest.mark.xdist_group("production")  # writes production: only this group does
@pytest.mark.parametrize("how", TRANSPORTS)
def test_a_hash_current_before_a_write_gives_the_new_snapshot(
    configurations: Configurations, snapshots: Snapshots, how: str
) -> None:
    """Take the hash, write, poll with the old one: 200 with the new snapshot. Judged only where
    a read after the write shows a new hash (a hash that never moves is
    SDK-STATUS-HASH-MOVES-ON-WRITE's)."""
    judged = 0
    with IndependentChecks() as independent:
        for environment in reachable(snapshots):
            old = current_hash(snapshots, environment, OTHER)
            configurations.create_ok(
                "stale", {"env": environment}, ids=OTHER, environment=environment
            )
            if same_json(current_hash(snapshots, environment, OTHER), old):
                continue
            judged += 1
            reply = send(
                snapshots, environment, how, quoted(old) if how == "if-none-match" else old
            )
            expect_snapshot(independent, reply, environment, how, "a hash current before a write")
            moved = reply.status != 200 or not same_json(json_object(reply, OTHER).get("hash"), old)
            independent.check(
                moved,
                OTHER,
                "a hash current before a write was answered with the old snapshot",
                f"the new snapshot: a hash other than {old!r}",
                reply.describe(),
                reply,
            )
    if not judged:
        raise NotMeasurable(
            "no snapshot hash moved after a configuration was created, so no hash was stale to "
            "send (SDK-STATUS-HASH-MOVES-ON-WRITE judges a hash that stays)"
        )


@requirement("SDK-STATUS-200-ON-OTHER-HASH")
@pytest.mark.parametrize("how", TRANSPORTS)
def test_another_environments_hash_gives_the_snapshot(snapshots: Snapshots, how: str) -> None:
    """Each environment's current hash sent to the others (where the profile reaches two)."""
    environments = reachable(snapshots)
    hashes = {e: current_hash(snapshots, e, OTHER) for e in environments}
    with IndependentChecks() as independent:
        for environment in environments:
            for other, foreign in hashes.items():
                if other == environment or same_json(hashes[environment], foreign):
                    continue
                sent = quoted(foreign) if how == "if-none-match" else foreign
                reply = send(snapshots, environment, how, sent)
                expect_snapshot(independent, reply, environment, how, f"{other}'s current hash")
        for label, value in near_misses(hashes[environments[0]])[:1]:  # always one judged case
            sent = quoted(value) if how == "if-none-match" else value
            reply = send(snapshots, environments[0], how, sent)
            expect_snapshot(independent, reply, environments[0], how, f"the hash {label}")


@requirement("SDK-STATUS-HASH-QUERY-EMPTY")
def test_empty_hash_query_is_refused(snapshots: Snapshots) -> None:
    ids = ("SDK-STATUS-HASH-QUERY-EMPTY",)
    reply = snapshots.status(params={"hash": ""})
    expect(400 <= reply.status < 500, ids, "hash= was accepted", "a 4xx", reply.describe(), reply)
