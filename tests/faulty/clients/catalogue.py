"""The faulty clients as data: name, the client requirement ids the fault breaks, what it does,
and the profile keys (``client:``) the stage is run with. ``CORRECT`` are variants that differ
from the reference client but keep every rule: the stage must fail none of their requirements.

Each name is a patch in ``patches.PATCHES``; ``run.py`` applies it and runs ``refclient``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HASH = "POLL-CLIENT-SEND-LAST-HASH"
HINT = "POLL-CLIENT-HONOUR-HINT"
JITTER = "POLL-CLIENT-HINT-JITTER"
JITTER_PER_POLL = "POLL-CLIENT-HINT-JITTER-PER-POLL"  # a convention
RELEASE = "POLL-CLIENT-HINT-RELEASE"
REFETCH = "POLL-CLIENT-REFETCH-CHANGED"
RETRY_AFTER = "POLL-CLIENT-RETRY-AFTER"
BACKOFF = "POLL-CLIENT-BACKOFF"
INSTANCE_ID = "SDK-CLIENT-INSTANCE-ID"
NUMERIC = "SDK-CLIENT-NUMERIC-HEADER"
ALIAS = "SDK-CLIENT-ENV-ALIAS"
AUTHORIZATION = "SDK-CLIENT-AUTHORIZATION"
EVERY = frozenset(
    {
        HASH,
        HINT,
        JITTER,
        JITTER_PER_POLL,
        RELEASE,
        REFETCH,
        RETRY_AFTER,
        BACKOFF,
        INSTANCE_ID,
        NUMERIC,
        ALIAS,
        AUTHORIZATION,
    }
)


@dataclass(frozen=True)
class ClientVariant:
    """One variant of the reference client and what the client stage must make of it."""

    name: str
    breaks: frozenset[str]  # the ids the stage fails (a correct variant: convention-only ones)
    doc: str
    profile: dict[str, str] = field(default_factory=dict)  # client: keys the profile writes
    differs: frozenset[str] = frozenset()  # the ids of its drop-in differences (undeclared keys)


def fault(
    name: str,
    breaks: set[str] | frozenset[str],
    doc: str,
    differs: frozenset[str] = frozenset(),
    **profile: str,
) -> ClientVariant:
    return ClientVariant(name, frozenset(breaks), doc, dict(profile), frozenset(differs))


DEFECTS: tuple[ClientVariant, ...] = (
    fault("polls-through-hint", {HINT}, "keeps its own cadence while the hint is in force"),
    fault(
        "symmetric-under-default",
        {HINT},
        "jitters symmetrically around intervalSeconds (waits from I(1-r)) under the default "
        "reading, 'above': no wait below intervalSeconds (spec 4.3, 8.2)",
    ),
    fault("no-jitter", {JITTER}, "waits exactly intervalSeconds: the spread of jitterRatio is 0"),
    fault(
        "shared-seed",
        {JITTER, BACKOFF},
        "seeds its random draws with a constant: every instance waits the same sequence",
    ),
    fault("slow-after-hint", {RELEASE}, "keeps the last hint after a 200 without polling"),
    fault("no-hash", {HASH}, "never sends the hash it was given"),
    fault("stale-hash", {HASH}, "keeps sending the first hash it was given"),
    fault("refetch-everything", {REFETCH}, "refetches whenever the snapshot hash moves"),
    fault("ignores-retry-after", {RETRY_AFTER}, "backs off after a 429 but ignores Retry-After"),
    fault("tight-5xx-loop", {BACKOFF}, "retries a failure every 50 ms, without backing off"),
    fault("no-backoff-jitter", {BACKOFF}, "doubles its backoff without jitter (lockstep retries)"),
    fault("no-instance-id", {INSTANCE_ID}, "never sends the instance id it was given"),
    fault("long-instance-id", {INSTANCE_ID}, "sends an instance id of 200 characters"),
    fault("project-id-zero", {NUMERIC}, "sends the numeric header as 0"),
    fault(
        "alias-out-of-scope",
        {ALIAS},
        "sends the environment alias production with a key scoped to development",
    ),
    fault("alias-unknown", {ALIAS}, "sends the environment alias staging, not an allowed value"),
    fault(
        "bearer-authorization",
        {AUTHORIZATION},
        "sends authorization: Bearer <key>, a scheme word before the key",
    ),
    fault(
        "bootstrap-first-declared-status",
        {HASH},
        "fetches a bootstrap first, where its profile declares client.first_request: status",
        first_request="status",
    ),
    fault("exits-early", EVERY, "exits on its own after a second"),
)

# Issue 31: written without reading the client stage's judges; each doc quotes the words broken.
ADVERSARIAL: tuple[ClientVariant, ...] = (
    fault(
        "adv-hint-jitter-drawn-once",
        {JITTER_PER_POLL},
        "draws its hinted wait once per hint value and reuses it for every poll under that hint "
        "(each instance its own draw). Spec 4.3 rule 2 says only 'spread by jitterRatio', which "
        "a spread across instances keeps (POLL-CLIENT-HINT-JITTER passes); a fresh draw per "
        "delay is the observed clients' convention, so this is a drop-in failure only",
    ),
    fault(
        "adv-retry-after-date-ignored",
        {RETRY_AFTER},
        "reads Retry-After with parseInt: delay-seconds honoured, an HTTP-date ignored (its own "
        "backoff applies). RFC 9110 10.2.3: 'Retry-After = HTTP-date / delay-seconds'; "
        "conventions: 'never retry sooner than a Retry-After says'",
    ),
    fault(
        "adv-instance-id-renewed-on-reconnect",
        {INSTANCE_ID},
        "suffixes its instance id with a reconnect count after each lost connection. Spec 4.3: "
        "'the calling game server's instance id; scopes the per-server rate limit'; 8.1: 'It is "
        "scoped by the server instance id' (one server, one id)",
    ),
    fault(
        "adv-hash-forgotten-after-failure",
        {HASH},
        "forgets its hash after any failed poll (5xx, 429, lost connection) and sends none on the "
        "next. Spec 4.3 rule 1: 'Poll at the client's own cadence, sending back the last hash "
        "seen'",
    ),
    fault(
        "adv-if-none-match-unquoted",
        {HASH},
        "sends If-None-Match as the bare hash, not the quoted entity-tag the ETag carried. Spec "
        "4.3: 'If-None-Match | header | ... | the last hash seen'; RFC 9110 13.1.2: "
        "'If-None-Match = \"*\" / #entity-tag'. Its profile declares the quoted form "
        "(client.if_none_match_form: quoted), so it breaks its own declaration (undeclared, the "
        "bare hash is a drop-in difference: bare-if-none-match-undeclared)",
        if_none_match_form="quoted",
    ),
    fault(
        "adv-hint-dropped-on-304",
        {HINT},
        "reads a 304 (no body, so no polling) as the hint gone and returns to its own cadence. "
        "Spec 4.3 rule 2: 'poll no faster than intervalSeconds ... until polling is gone from a "
        "response'; a 304 confirms the stored response (RFC 9110 15.4.5)",
    ),
)

CORRECT: tuple[ClientVariant, ...] = (
    fault("reference", set(), "the reference client as it is (above reading, header hash)"),
    fault("query-hash", set(), "sends the hash as ?hash=", hash_transport="query"),
    fault(
        "symmetric-declared",
        set(),
        "jitters symmetrically (the observed clients' formula), declared in its profile",
        jitter_reading="symmetric",
    ),
    fault(
        "per-configuration",
        set(),
        "refetches one GET /sdk/v2/configurations/{id} per moved configuration",
        refetch_request="/sdk/v2/configurations/{id}",
    ),
    fault("equal-jitter", set(), "backs off with equal jitter: each wait uniform in [d/2, d)"),
    fault(
        "full-jitter",
        set(),
        "backs off with full jitter: each wait uniform in [0, d), no floor (a wait may be ~0)",
    ),
    fault(
        "decorrelated-jitter",
        set(),
        "backs off with decorrelated jitter: wait = min(cap, uniform(base, 3 x previous wait))",
    ),
    # Issue 37: filling the gaps their own way, declared or not.
    fault(
        "bare-if-none-match-declared",
        set(),
        "sends If-None-Match as the bare hash (spec 4.3's table: 'the last hash seen'), declared",
        if_none_match_form="bare",
    ),
    fault(
        "bare-if-none-match-any",
        set(),
        "sends If-None-Match as the bare hash, the profile accepting either form",
        if_none_match_form="any",
    ),
    fault(
        "bare-if-none-match-undeclared",
        set(),
        "sends If-None-Match as the bare hash, undeclared: a drop-in difference only",
        differs=frozenset({HASH}),
    ),
    fault(
        "bootstrap-first-declared",
        set(),
        "fetches a bootstrap snapshot first and polls with its hash (spec 1), declared",
        first_request="bootstrap",
    ),
    fault(
        "bootstrap-first-undeclared",
        set(),
        "fetches a bootstrap snapshot first, undeclared: a drop-in difference only",
        differs=frozenset({HASH}),
    ),
    fault(
        "backoff-cadence-floor",
        {BACKOFF},
        "never waits less than its own cadence after a failure (no doubling before the cap): "
        "never hammers; the convention's growth is missed, a drop-in failure only",
    ),
    fault(
        "query-template-refetch",
        set(),
        "refetches one GET /sdk/v2/bootstrap?configuration={id} per moved configuration",
        refetch_request="/sdk/v2/bootstrap?configuration={id}",
    ),
    fault("studio-alias", set(), "sends the environment alias studio (development's synonym)"),
    fault("no-alias", set(), "never sends the environment alias (development by default)"),
)

FAULTS: tuple[ClientVariant, ...] = DEFECTS + ADVERSARIAL

ALL: tuple[ClientVariant, ...] = FAULTS + CORRECT


def by_name() -> dict[str, ClientVariant]:
    return {variant.name: variant for variant in ALL}
