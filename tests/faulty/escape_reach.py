"""What the escapes must fail, as requirement sets measured with the whole suite: the requirements
a server keeps while refusing every management call, and those it fails by refusing identity
bootstraps, moving its hash on every read, withholding a list or hiding a snapshot entry.

``faulty.escapes`` writes its entries' ``breaks`` with them.
"""

from __future__ import annotations

from conformance.catalogue.requirements import load_catalogue


def checkable() -> frozenset[str]:
    return frozenset(r.id for r in load_catalogue() if r.checkable)


# Requirements whose scenarios never call a management or experiment endpoint: a server that
# answers every /application/... request with 429 still keeps them (measured: these pass against
# escape-management-429 with the whole suite). Every other checkable requirement is checked
# through at least one management call the target owes an answer to, so that server fails it.
HOLD_WITHOUT_APPLICATION = frozenset(
    """
    AUTH-SDK-ENV-IN-SCOPE AUTH-SDK-INVALID AUTH-SDK-KEY-ACCEPTED AUTH-SDK-LEGACY-PREFIX
    AUTH-SDK-MISSING AUTH-SDK-PAT-REFUSED ERR-STATUS-BODY-JSON ERR-STATUS-BODY-JSON-UNLISTED-METHOD
    LIMIT-RATE-429-RETRY-AFTER
    LIMIT-RATE-ENFORCED LIMIT-RATE-PER-INSTANCE LIMIT-RATE-RECOVERS LIMIT-RATE-SHARED-WITHOUT-ID
    LIMIT-RATE-WITHIN-BUDGET POLL-HINT-ABSENT-NORMALLY POLL-HINT-GONE-AFTER-LOAD
    POLL-HINT-JITTER-RATIO-RANGE POLL-HINT-ON-BOOTSTRAP POLL-HINT-SHAPE POLL-HINT-UNDER-LOAD
    POLL-HINT-VALUES-USABLE
    SDK-BOOTSTRAP-304 SDK-BOOTSTRAP-ENV-SCOPE-403 SDK-BOOTSTRAP-ETAG-EQUALS-HASH
    SDK-BOOTSTRAP-HASH-EQUALS-STATUS SDK-BOOTSTRAP-MATCHES-STATUS SDK-HDR-ENV-OUT-OF-SCOPE-403
    SDK-HDR-ENV-UNKNOWN-VALUE SDK-HDR-INSTANCE-ID-LENGTH SDK-HDR-INSTANCE-ID-OUT-OF-BOUNDS
    SDK-HDR-NUMERIC-IN-BOUNDS SDK-HDR-NUMERIC-OUT-OF-BOUNDS SDK-STATUS-200-SNAPSHOT
    SDK-STATUS-304-ETAG SDK-STATUS-304-HASH-QUERY
    SDK-STATUS-304-IF-NONE-MATCH SDK-STATUS-304-NO-BODY SDK-STATUS-ETAG-EQUALS-HASH
    SDK-STATUS-HASH-QUERY-EMPTY SDK-STATUS-HASH-STABLE SDK-STATUS-IF-NONE-MATCH-FORMS
    SDK-STATUS-MINIMAL-REQUEST VER-LEGACY-KEY-SAME-SNAPSHOT
    """.split()  # noqa: SIM905  (ids read as a block)
)


# Requirements judged through a bootstrap with identity (per-unit content, assignment,
# bucketing): a server that never serves one fails them all (measured with the whole suite).
# Since the class fix of issue 31 the alias rules and the shedding hint are judged on every SDK
# endpoint form, the per-unit bootstrap included: a refusal there breaks them too.
IDENTITY_BREAKS = (
    "EXP-ASSIGNMENT-DETERMINISTIC EXP-ASSIGNMENT-PERSISTENT EXP-CONTEXT-PROPERTIES-RECORDED "
    "EXP-MANUAL-ASSIGNMENT-CONTENT EXP-REQUIRED-PROPERTIES-GATE EXP-ROLLOUT-LIMITS-ENROLMENT "
    "EXP-ROUND-ROBIN-BALANCED EXP-UNENROLL-BASE-CONTENT EXP-WEIGHTED-HASH-GOLDEN "
    "EXP-WEIGHTED-SPLIT SDK-BOOTSTRAP-ID-ETAG-EQUALS-HASH SDK-BOOTSTRAP-ID-MERGE "
    "SDK-BOOTSTRAP-ID-METADATA SDK-BOOTSTRAP-ID-ONLY-ACTIVE SDK-BOOTSTRAP-ID-UNIT-TYPE "
    "SDK-BOOTSTRAP-ID-UNTOUCHED-CONFIGS SDK-BOOTSTRAP-ENV-SCOPE-403 "
    "SDK-HDR-ENV-DEFAULT-DEVELOPMENT SDK-HDR-ENV-STUDIO-SYNONYM SDK-HDR-ENV-UNKNOWN-VALUE "
    "POLL-HINT-ON-BOOTSTRAP"
)


# A snapshot hash that moves on every read breaks each rule that compares two hashes: stability,
# a hash moving on a write (no quiet "before"), equal hashes across aliases, keys and endpoints,
# and the hash left alone by a refused patch.
RESTLESS_BREAKS = (
    "SDK-STATUS-HASH-STABLE SDK-STATUS-HASH-MOVES-ON-WRITE SDK-STATUS-HASH-ENV-ISOLATED "
    "SDK-HDR-ENV-DEFAULT-DEVELOPMENT SDK-HDR-ENV-STUDIO-SYNONYM VER-LEGACY-KEY-SAME-SNAPSHOT "
    "SDK-BOOTSTRAP-MATCHES-STATUS SDK-BOOTSTRAP-HASH-EQUALS-STATUS CFG-PATCH-409-NOTHING-CHANGES "
    "EXP-SNAPSHOT-HASH-MOVES-ON-CREATE EXP-SNAPSHOT-HASH-MOVES-ON-CHANGE "
    "EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE SDK-STATUS-304-ETAG"
)


# Requirements whose scenarios read a paged experiment list (the list itself, or to prove that a
# refused write or an assignment changed what it should): a list the suite cannot read fails
# them all (measured with the whole suite).
LIST_READERS = (
    "EXP-LIST EXP-MEMBERS EXP-ASSIGNMENTS-LIST EXP-ASSIGNMENT-COUNTS EXP-ASSIGNMENT-PERSISTENT "
    "EXP-COUNTS-AGREE-MEMBERS EXP-COUNTS-AGREE-TOTALS EXP-GROUP-COUNTS EXP-MANUAL-ASSIGNMENT "
    "EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP EXP-REACTIVATE EXP-UNENROLL EXP-TERMINATE-FINAL "
    "EXP-UNKNOWN-ID EXP-CREATE-INVALID-BASE-CONFIG EXP-CREATE-INVALID-FIELDS "
    "EXP-CREATE-INVALID-GROUP-COUNT EXP-CREATE-INVALID-WEIGHTS AUTH-EXP-INVALID AUTH-EXP-MISSING "
    "AUTH-EXP-SDK-KEY-REFUSED"
)


# Of LIST_READERS, those whose scenarios read a list only as a step they need (not the list they
# judge): a list they cannot read blocks them (not measurable, one cause), never fails them.
LIST_STEP_READERS = frozenset(
    {
        "AUTH-EXP-INVALID",
        "AUTH-EXP-MISSING",
        "AUTH-EXP-SDK-KEY-REFUSED",
        "EXP-ASSIGNMENT-COUNTS",
        "EXP-COUNTS-AGREE-MEMBERS",
        "EXP-COUNTS-AGREE-TOTALS",
        "EXP-GROUP-COUNTS",
        "EXP-MANUAL-ASSIGNMENT",
        "EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP",
        "EXP-REACTIVATE",
        "EXP-TERMINATE-FINAL",
        "EXP-UNENROLL",
    }
)


LIST_JUDGES = " ".join(i for i in LIST_READERS.split() if i not in LIST_STEP_READERS)


# Requirements whose scenarios read a snapshot listing a running experiment (its summary, the
# hash moving with it, the base content beside it): measured with the whole suite.
EXPERIMENT_SNAPSHOT_BREAKS = (
    "EXP-ROLLOUT-CHANGE EXP-SNAPSHOT-BY-UNIT-TYPE EXP-SNAPSHOT-GROUP-CONVENTIONS "
    "EXP-SNAPSHOT-GROUP-FIELDS "
    "EXP-SNAPSHOT-HASH-MOVES-ON-CHANGE EXP-SNAPSHOT-HASH-MOVES-ON-CREATE "
    "EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE EXP-SNAPSHOT-MATCHES-EXPERIMENT "
    "EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION EXP-SNAPSHOT-SUMMARY-FIELDS "
    "EXP-TERMINATE-LEAVES-SNAPSHOT EXP-WEIGHTED-HASH-GOLDEN EXP-WEIGHTED-SPLIT "
    "SDK-BOOTSTRAP-ID-ETAG-EQUALS-HASH SDK-BOOTSTRAP-NO-IDENTITY-BASE"
)


# Requirements whose scenarios find a configuration they wrote in a snapshot (its entry, its
# hash, its document, or proof that a refused write left it alone): measured with the whole suite.
HIDDEN_BREAKS = (
    "AUTH-PAT-INVALID AUTH-PAT-MISSING AUTH-SDK-KEY-NO-MANAGEMENT AUTH-SDK-PROJECT-SCOPED "
    "CFG-ENV-ID-REQUIRED CFG-ENV-ID-UNKNOWN CFG-PATCH-409-NOTHING-CHANGES CFG-PATCH-ATOMIC "
    "CFG-PATCH-CONCURRENT-ONE-WINS CFG-PATCH-MALFORMED-REFUSED CFG-PATCH-PERSISTS "
    "CFG-PATCH-SIDECAR-INAPPLICABLE-409 ERR-MALFORMED-JSON SDK-BOOTSTRAP-DOCUMENTS-CURRENT "
    "SDK-BOOTSTRAP-NO-IDENTITY-BASE SDK-HDR-ENV-PRODUCTION SDK-STATUS-CONFIG-HASH-MOVES "
    "SDK-STATUS-CONFIG-HASH-OTHERS-STABLE SDK-STATUS-ENV-ISOLATION "
    "SDK-STATUS-LISTS-CONFIGURATIONS SDK-STATUS-PRIMARY-CONFIG"
)
