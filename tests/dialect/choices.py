"""The dialect's gap choices as data: every name, status and figure where it departs from refserver.

Each rename table maps the reference server's name to the dialect's. The profile
(``dialect.profile``) declares these same values; the translation modules read them from here.
"""

from __future__ import annotations

# SDK request headers, by profile key (headers.*): reference name -> dialect name.
HEADER_KEYS: dict[str, tuple[str, str]] = {
    "environment": ("environment", "x-rces-env"),
    "instance_id": ("server-id", "x-rces-instance"),
    "numeric": ("project-id", "x-rces-project"),
    "sdk_version": ("sdkversion", "x-rces-sdk"),
    "unit_id": ("unit-id", "x-rces-unit"),
    "unit_type": ("unit-type", "x-rces-unit-kind"),
    "unit_context": ("unit-context", "x-rces-unit-props"),
}
HEADERS: dict[str, str] = dict(HEADER_KEYS.values())

# Create body (bodies.create.*): reference field -> dialect field.
CREATE_KEYS: dict[str, tuple[str, str]] = {
    "content": ("configuration", "content"),
    "private_keys": ("privateKeys", "secretPaths"),
    "comments": ("comments", "notes"),
}
CREATE_FIELDS: dict[str, str] = dict(CREATE_KEYS.values())

# Patch body (bodies.patch.*): the base hash travels in If-Match, not in a field.
PATCH_KEYS: dict[str, tuple[str, str]] = {
    "operations": ("operations", "patch"),
    "base_hash": ("baseHash", "baseContentHash"),
    "key_order": ("keyOrder", "order"),
}
PATCH_FIELDS: dict[str, str] = {
    ref: dialect for key, (ref, dialect) in PATCH_KEYS.items() if key != "base_hash"
}
BASE_HASH_TRANSPORT = "if-match"
KEY_ORDER_SHAPE = "entries"
KEY_ORDER_ENTRY = ("path", "keys")  # an entry's two fields
PATH_SYNTAX = "dotted"

# Error bodies (errors.code_field / message_field).
ERROR_FIELDS: dict[str, str] = {"errorCode": "code", "message": "detail"}

# Statuses: the reference server's status -> the dialect's, and the special cases.
VALIDATION_STATUS = 422  # every 400 of the reference server but a body that is not JSON
MALFORMED_BODY_STATUS = (
    400  # a body that is not JSON at all (refserver: 400, its validation status)
)
FOREIGN_PROJECT_STATUS = 404  # refserver: 403 PERMISSION_DENIED for a non-member
TERMINATED_STATUS = 410  # a change asked of a terminated experiment (refserver: 409)
CREATE_STATUS = 200  # create configuration and create experiment (refserver: 201)

# Experiment payloads (experiment_payload.*): reference name -> dialect name, by profile key.
EXPERIMENT_KEYS: dict[str, tuple[str, str]] = {
    "items": ("items", "results"),
    "next_cursor": ("nextCursor", "nextPage"),
    "cursor_param": ("cursor", "pageToken"),
    "limit_param": ("limit", "take"),
    "offset_param": ("offset", "skip"),
    "status": ("status", "phase"),
    "status_param": ("status", "state"),
    "terminated": ("terminated", "ended"),
    "member_active": ("active", "enrolled"),
    "member_unenrolled": ("unenrolled", "dropped"),
    "changeset": ("changeset", "changes"),
    "unit_id": ("unitId", "unit"),
    "group_id": ("groupId", "variant"),
    "experiment_id": ("experimentId", "experiment"),
    "percentage": ("percentage", "share"),
    "weights": ("weights", "variantWeights"),
    "rollout_groups": ("groups", "variants"),
    "count_active": ("active", "enrolledCount"),
    "count_unenrolled": ("unenrolled", "droppedCount"),
    "count_total": ("total", "allCount"),
    "count_groups": ("groups", "perVariant"),
    "property_name": ("name", "property"),
}
PAGINATION = "offset"
PAGE_SIZE_MAX = 20  # experiments.page_size_max (refserver: 100)
PAGE_SIZE_DEFAULT = 10
CHANGESET_FORMAT = "json-patch"


def dialect_name(key: str) -> str:
    """The dialect's name for an experiment_payload key."""
    return EXPERIMENT_KEYS[key][1]


def reference_name(key: str) -> str:
    return EXPERIMENT_KEYS[key][0]


# Status values of assignments and members (and of an experiment: terminated).
MEMBER_STATUS_VALUES: dict[str, str] = {"active": "enrolled", "unenrolled": "dropped"}
EXPERIMENT_STATUS_VALUES: dict[str, str] = {"terminated": "ended"}

# Bootstrap payload (bootstrap_payload.*).
BOOTSTRAP_KEYS: dict[str, tuple[str, str]] = {
    "document": ("configuration", "doc"),
    "assignments": ("assignments", "enrolments"),
}

# Rate limit of the status endpoint: one bucket per instance id (whatever the key), else per
# client address. Retry-After is an HTTP date.
RATE_BURST = 40
RATE_REFILL_PER_SECOND = 20.0
RATE_SCOPE = "instance"  # rate_limit.scope: one bucket per instance id whatever the key

# Load shedding: the dialect's own meter over a 2 s window, its own hint.
SHED_THRESHOLD_PER_SECOND = 120.0
SHED_WINDOW_SECONDS = 2.0
SHED_HINT: dict[str, float] = {"intervalSeconds": 20, "jitterRatio": 0.3}

# Hashes: 40 hex digits of BLAKE2b (20-byte digest) over the reference server's hash.
HASH_DIGEST_BYTES = 20

# Timestamps: written at this fixed offset from UTC, with microseconds.
TIMESTAMP_OFFSET_MINUTES = 60

# The service's own objectives for the load stage, as an operator of the dialect would declare
# them: generous figures for a translating layer on a shared 2-core machine, each still judged
# (the dialects' load tests and benchmarks/regenerate_corpus.py take them from here).
LOAD_OBJECTIVES = {
    "load": {
        "latency_p50_ms": 250,
        "latency_p99_ms": 1500,
        "min_not_modified_share": 0.8,
        "write_interval_seconds": 10.0,
        "min_throughput": 100,
    }
}
