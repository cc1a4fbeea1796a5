"""Scenarios: creating configurations (spec 2.1, 2.2, 4.1)."""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from conformance.checks import IndependentChecks, expect, json_object, media_expected, media_problem
from conformance.checks.declared import expect_declared_status
from conformance.checks.shapes import expect_shape
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots
from conformance.drivers.steps import body_of, ok, setup_failed
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import json_difference, json_text, same_json
from conformance.oracles.shapes import DATE_TIME, ISO_8601_DATE_TIME

requirement = pytest.mark.requirement

CONTENTS: dict[str, JsonValue] = {
    "object": {"economy": {"coins": 5, "gems": [1, 2, 3]}, "flag": True, "ratio": 0.25},
    "array": [1, "two", {"three": 3}, None],
    "scalar": "just a string",
    "nested": {"a": {"b": {"c": {"d": [[], {}, [{"e": None}]]}}}},
    "unicode": {"name": "Ωmega ✓", "emoji": "🎮", "escapes": 'quote " backslash \\'},
    # JSON types Python's == confuses: true and 1, 1 and 1.0, false and 0, null and absent
    "types": {"t": True, "one": 1, "oneFloat": 1.0, "f": False, "zero": 0, "n": None},
    "typed-array": [True, 1, 1.0, False, 0, 0.0, None, [True], {"one": 1.0}],
}


@requirement("CFG-CREATE-RECORD-SHAPE")
def test_create_answers_a_full_record(configurations: Configurations) -> None:
    ids = ("CFG-CREATE-RECORD-SHAPE",)
    reply = configurations.create("shape", {"a": 1})
    created = configurations.profile.statuses.create_configuration
    expect_declared_status(
        reply,
        configurations.profile,
        "statuses.create_configuration",
        created,
        ids,
        "create status",
    )
    expect_shape("record", json_object(reply, ids), ids, "create answered a partial record", reply)


@requirement("CFG-CREATE-MINIMAL-BODY")
def test_create_with_only_a_name(configurations: Configurations) -> None:
    ids = ("CFG-CREATE-MINIMAL-BODY",)
    name = configurations.client.name("minimal")
    record = configurations.create_ok(body={"name": name}, ids=ids)
    expect(
        same_json(record.get("name"), name),
        ids,
        "record name differs",
        repr(name),
        repr(record.get("name")),
    )


@requirement("CFG-CREATE-NAME-REQUIRED")
@pytest.mark.parametrize("body", [{}, {"name": 42}, {"name": None}], ids=["absent", "int", "null"])
def test_create_without_a_string_name_is_refused(
    configurations: Configurations, snapshots: Snapshots, body: JsonObject
) -> None:
    """Refused with a 4xx, and nothing created: no document the SDK serves is the body's content
    (a marker unique to this case; judged where the target serves bootstrap documents)."""
    ids = ("CFG-CREATE-NAME-REQUIRED",)
    marker: JsonObject = {"marker": f"no-name-{secrets.token_hex(6)}"}
    body = {**body, configurations.profile.bodies.create.content: marker}
    reply = configurations.create(body=body)
    expect(
        400 <= reply.status < 500, ids, "create without a name", "a 4xx", reply.describe(), reply
    )
    if snapshots.profile.capability("bootstrap"):
        documents = snapshots.documents("development", ids)
        made = [i for i, document in documents.items() if same_json(document, marker)]
        expect(
            not made,
            ids,
            "the refused create without a name still made a configuration",
            f"no configuration with the content {marker}",
            f"configuration {made[0] if made else ''} holds it",
        )


@requirement("CFG-CREATE-CONTENT-ROUNDTRIP")
@pytest.mark.parametrize("kind", [*CONTENTS, "null"])
def test_created_content_comes_back(configurations: Configurations, kind: str) -> None:
    ids = ("CFG-CREATE-CONTENT-ROUNDTRIP",)
    content = CONTENTS.get(kind)
    record = configurations.create_ok(f"content-{kind}", content, ids=ids)
    returned = record.get("configuration", "(absent)")
    difference = json_difference(content, returned)
    expect(
        "configuration" in record and difference is None,
        ids,
        "created content did not come back unchanged",
        f"{json_text(content, 300)} (JSON types kept; member order is CFG-CREATE-KEY-ORDER-KEPT's)",
        f"{json_text(returned, 300)}; {difference}",
    )


@requirement("CFG-CREATE-PRIVACY-AND-COMMENTS")
def test_privacy_paths_and_comments_are_kept(configurations: Configurations) -> None:
    ids = ("CFG-CREATE-PRIVACY-AND-COMMENTS",)
    paths = ["/economy/secretSeed", "/ops/token"]
    comments = {"owner": "live-ops", "why": "launch tuning"}
    record = configurations.create_ok(
        "private",
        {"economy": {"secretSeed": 7}, "ops": {"token": "x"}},
        ids=ids,
        private_keys=paths,
        comments=comments,
    )
    kept = record.get("privateKeys")
    spelled = configurations.spelled_paths(paths)
    expect(
        isinstance(kept, list) and sorted(kept) == sorted(spelled),
        ids,
        "privacy paths were not kept",
        f"{spelled!r} (spelled as profile bodies.private_path_syntax, else path_syntax, says)",
        repr(kept),
    )
    expect(
        same_json(record.get("comments"), comments),
        ids,
        "comments were not kept",
        repr(comments),
        repr(record.get("comments")),
    )


@requirement("CFG-CREATE-EXTRA-PROPERTIES", "CFG-CREATE-EXTRA-PROPERTIES-ECHOED")
def test_extra_properties_round_trip(configurations: Configurations) -> None:
    """The interface: a create with extras is accepted (spec 2.1). Their echo is a convention."""
    ids = ("CFG-CREATE-EXTRA-PROPERTIES",)
    extra = {
        "xString": "s",
        "xNumber": 12.5,
        "xBool": False,
        "xNull": None,
        "xArray": [1, {"k": "v"}],
        "xObject": {"nested": {"deep": True}},
    }
    record = configurations.create_ok("extra", {"a": 1}, ids=ids, extra=extra)
    with IndependentChecks() as independent:
        independent.checked.extend(ids)  # accepted and answered with a record: create_ok held
        for key, value in extra.items():
            independent.check(
                key in record and same_json(record[key], value),
                ("CFG-CREATE-EXTRA-PROPERTIES-ECHOED",),
                f"extra property {key} did not round-trip",
                repr(value),
                repr(record.get(key, "(absent)")),
            )


@requirement("CFG-CREATE-NEW-ID")
def test_each_create_makes_a_new_id(configurations: Configurations) -> None:
    ids = ("CFG-CREATE-NEW-ID",)
    first = configurations.create_ok("same-name", {"n": 1}, ids=ids)
    second = configurations.create_ok("same-name", {"n": 2}, ids=ids)
    expect(
        not same_json(first.get("id"), second.get("id")),
        ids,
        "two creates with one name share an id",
        "two distinct ids",
        f"{first.get('id')!r} twice",
    )


@requirement("CFG-CREATE-KEY-ORDER-KEPT")
def test_create_keeps_member_order(configurations: Configurations) -> None:
    ids = ("CFG-CREATE-KEY-ORDER-KEPT",)
    content = {"zeta": 1, "alpha": {"y": 1, "b": 2, "m": 3}, "mid": [{"q": 1, "c": 2}], "beta": 0}
    reply = configurations.create("order", content)
    created = configurations.profile.statuses.create_configuration
    expect_declared_status(
        reply, configurations.profile, "statuses.create_configuration", created, ids, "create"
    )
    returned = json_object(reply, ids).get("configuration")
    expect(
        _order(returned) == _order(content),
        ids,
        "member order of the created content changed",
        repr(_order(content)),
        repr(_order(returned)),
    )


def _order(value: object) -> object:
    """Key order of every object, as nested lists (dict equality ignores order)."""
    if isinstance(value, dict):
        return [[k, _order(v)] for k, v in value.items()]
    if isinstance(value, list):
        return [_order(v) for v in value]
    return value


@requirement("CFG-RECORD-IDS-MATCH-REQUEST")
@pytest.mark.parametrize(
    "environment",  # only the serialised "production" group writes production
    ["development", pytest.param("production", marks=pytest.mark.xdist_group("production"))],
)
def test_record_names_project_and_environment(
    configurations: Configurations, environment: str
) -> None:
    ids = ("CFG-RECORD-IDS-MATCH-REQUEST",)
    profile = configurations.profile
    env_id = profile.environment_id(environment)
    record = configurations.create_ok("ids", {"e": environment}, ids=ids, environment=environment)
    expect(
        (record.get("applicationId"), record.get("environmentId"))
        == (profile.project.application_id, env_id),
        ids,
        "record names another project or environment",
        f"applicationId {profile.project.application_id}, environmentId {env_id}",
        f"applicationId {record.get('applicationId')!r}, "
        f"environmentId {record.get('environmentId')!r}",
    )


@requirement("CFG-RECORD-TIMESTAMPS", "CFG-RECORD-TIMESTAMPS-RFC3339", "CFG-RECORD-DELETED-AT-LIVE")
def test_record_timestamps(configurations: Configurations) -> None:
    """The interface: any ISO 8601 date-time (spec 2.1), deletedAt such a string or null, in the
    record create returns and in the one patch returns (2.1: "returned by create and patch").
    The conventions (RFC 3339's profile, deletedAt null on a live record) under their own ids."""
    created = configurations.create_ok("times", {"t": 1})
    reply = configurations.patch(created["id"], [{"op": "add", "path": "/u", "value": 1}])
    patched = body_of(reply)
    if not ok(reply) or not isinstance(patched, dict):
        raise setup_failed("patch the configuration whose record this test reads", reply)
    with IndependentChecks() as independent:
        for what, record in (("create", created), ("patch", patched)):
            _judge_stamps(independent, what, record)


def _judge_stamps(independent: IndependentChecks, what: str, record: dict[str, Any]) -> None:
    deleted = record.get("deletedAt", "absent")
    stamps = {name: record.get(name) for name in ("createdAt", "updatedAt")}
    if deleted not in (None, "absent"):  # present and not null: an ISO 8601 date-time too
        stamps["deletedAt"] = deleted
    for name, value in stamps.items():
        # one cause, one finding: a value that is no ISO 8601 date-time is the interface's
        if not independent.check(
            isinstance(value, str) and re.match(ISO_8601_DATE_TIME, value) is not None,
            ("CFG-RECORD-TIMESTAMPS",),
            f"{name} of the record {what} returned is not an ISO 8601 date-time",
            "an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z or 20260131T120000,5",
            repr(value),
        ):
            continue
        independent.check(
            isinstance(value, str) and re.match(DATE_TIME, value) is not None,
            ("CFG-RECORD-TIMESTAMPS-RFC3339",),
            f"{name} of the record {what} returned is not an RFC 3339 date-time",
            "an RFC 3339 date-time with a zone, e.g. 2026-01-31T12:00:00.000Z",
            repr(value),
        )
    independent.check(
        "deletedAt" in record,
        ("CFG-RECORD-TIMESTAMPS",),
        f"deletedAt is missing from the record {what} returned",
        "deletedAt present (a date-time or null)",
        "absent",
    )
    independent.check(
        deleted is None,
        ("CFG-RECORD-DELETED-AT-LIVE",),
        f"a live configuration is marked deleted in the record {what} returned",
        "deletedAt null",
        repr(deleted),
    )


@requirement("CFG-RESPONSE-CONTENT-TYPE-JSON")
def test_create_and_patch_answer_json(configurations: Configurations) -> None:
    ids = ("CFG-RESPONSE-CONTENT-TYPE-JSON",)
    created = configurations.create("ctype", {"a": 1})
    patched = configurations.patch(
        json_object(created, ids).get("id"), [{"op": "add", "path": "/b", "value": 2}]
    )
    for reply in (created, patched):
        received = media_problem(reply.headers)
        expect(
            received is None,
            ids,
            "response is not application/json",
            media_expected(),
            received or "",
            reply,
        )
