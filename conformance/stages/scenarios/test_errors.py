"""Scenarios: error answers (spec 7): JSON bodies of the declared shape, 400 for bad input, no 5xx.

The requests that provoke errors are a table (``error_cases``): each row names the endpoint
family, whether it is a validation failure (answered 400), and how to send it.
"""

from __future__ import annotations

import json

import pytest

from conformance.checks import (
    JSON_MEDIA,
    IndependentChecks,
    conventions,
    expect,
    json_media_expected,
    json_media_problem,
    media_expected,
)
from conformance.checks.declared import expect_declared_status, field_received, status_holds
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots, configuration_entries
from conformance.errors import NotConfigured, NotMeasurable, Unsupported
from conformance.json_types import JsonValue
from conformance.oracles.json_equality import same_json
from conformance.profile import Profile
from conformance.stages.scenarios.error_cases import CASES, RATE_LIMITED, UNLIKELY_ID, Case
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement


def _case_ids(cases: list[Case]) -> list[object]:
    return [pytest.param(case, id=case.label) for case in cases]


MEDIA_KEY = "errors.media_type"


def _not_json(
    reply: Reply, case: Case, profile: Profile, ids: tuple[str, ...], title: str
) -> tuple[str | None, str]:
    """``(received, expected)``: received is None when the error is a JSON body in a media type
    the interface allows (a Content-Type judged by its media-type grammar, RFC 9110 8.3.1).

    The status endpoint's other statuses come "with a JSON body" (spec 4.3): any JSON media
    type keeps that (application/json, application/*+json: RFC 6838 4.2.8, so RFC 9457's
    application/problem+json). The configuration endpoints' "Response media type is
    application/json" (4.1) is read as binding every answer of theirs, error answers included
    (the sentence names no status): there it is exact. Elsewhere, a media type other than
    ``errors.media_type`` fails when the profile declares the key, and is a drop-in difference
    when it is the key's default (application/json, the production convention)."""
    problem, essence = json_media_problem(reply.headers)
    exact = case.family == "management"
    wanted = JSON_MEDIA if exact else profile.errors.media_type
    declared = exact or profile.declares(MEDIA_KEY)
    expected = (
        f"{media_expected(wanted)}, with a JSON body"
        + (" (spec 4.1: Response media type is application/json)" if exact else "")
        + ("" if exact or not declared else f" (profile {MEDIA_KEY})")
    )
    if not declared:
        expected = f"{json_media_expected()}, with a JSON body"
    if problem is None and _json_body(reply) is None:
        problem = f"Content-Type {reply.headers.get('content-type')!r}, body not JSON"
    if problem is None and essence != wanted:
        if declared:
            problem = f"Content-Type {reply.headers.get('content-type')!r}: media type {essence}"
        else:
            conventions.differs(ids, MEDIA_KEY, wanted, reply.describe(), title, reply)
    if problem is None:
        return None, expected
    return f"{problem}, {reply.describe()}", expected


def _served(case: Case, reply: Reply) -> str:
    """Why a served invalid request leaves the error-body rule unjudged, and who judges it."""
    return (
        f"the invalid request ({case.label}) was served (HTTP {reply.status}): there is no "
        "error body to judge; the missing refusal fails the rule of the case itself in the same "
        "run (a validation, credentials or unknown-id rule), not this one"
    )


def _json_body(reply: Reply) -> JsonValue:
    try:
        body: JsonValue = reply.json()
    except AssertionError:
        return None
    return body


# A method the spec does not list for the status endpoint: its refusal is no status code the
# listing gives, so a JSON body there is a convention (ERR-STATUS-BODY-JSON-UNLISTED-METHOD).
UNLISTED_METHOD = "status-method-not-allowed"


@requirement("ERR-STATUS-BODY-JSON")
@pytest.mark.parametrize(
    "case", _case_ids([c for c in CASES if c.family == "status" and c.label != UNLISTED_METHOD])
)
def test_status_errors_are_json(
    configurations: Configurations, snapshots: Snapshots, case: Case
) -> None:
    _judge_status_error(configurations, snapshots, case, ("ERR-STATUS-BODY-JSON",))


@requirement("ERR-STATUS-BODY-JSON-UNLISTED-METHOD")
def test_status_unlisted_method_error_is_json(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    (case,) = [c for c in CASES if c.label == UNLISTED_METHOD]
    _judge_status_error(configurations, snapshots, case, ("ERR-STATUS-BODY-JSON-UNLISTED-METHOD",))


def _judge_status_error(
    configurations: Configurations, snapshots: Snapshots, case: Case, ids: tuple[str, ...]
) -> None:
    __tracebackhide__ = True
    reply = case.send(configurations, snapshots)
    if reply.status in (200, 304):
        raise NotMeasurable(_served(case, reply), ids)
    title = f"status error ({case.label}) has no JSON body"
    received, expected = _not_json(reply, case, snapshots.profile, ids, title)
    expect(received is None, ids, title, expected, received or "", reply)


@requirement("ERR-BODY-JSON")
@pytest.mark.parametrize("case", _case_ids([c for c in CASES if c.family != "status"]))
def test_errors_are_json(configurations: Configurations, snapshots: Snapshots, case: Case) -> None:
    ids = ("ERR-BODY-JSON",)
    if case.family == "bootstrap" and not snapshots.profile.capability("bootstrap"):
        raise Unsupported("bootstrap")
    reply = case.send(configurations, snapshots)
    if not 400 <= reply.status < 500:  # a 5xx or no answer already failed in the client
        raise NotMeasurable(_served(case, reply), ids)
    title = f"error ({case.label}) has no JSON body"
    received, expected = _not_json(reply, case, snapshots.profile, ids, title)
    expect(received is None, ids, title, expected, received or "", reply)


@requirement("ERR-BODY-SHAPE")
@pytest.mark.serial(spends=True)  # the 429 case drains a bucket: nothing else in flight
def test_error_bodies_have_code_and_message(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("ERR-BODY-SHAPE",)
    shape = snapshots.profile.errors
    # errors.code_field: null declares a body without a code field; only the message is read.
    fields = [
        (key, name)
        for key, name in (
            ("errors.code_field", shape.code_field),
            ("errors.message_field", shape.message_field),
        )
        if name is not None
    ]
    wanted = " and ".join(repr(name) for _, name in fields)
    judged = 0
    sent: list[str] = []
    with IndependentChecks() as independent:
        limited = [RATE_LIMITED] if snapshots.profile.capability("rate_limit") else []
        for case in [*CASES, *limited]:
            if case.family == "bootstrap" and not snapshots.profile.capability("bootstrap"):
                continue
            try:
                reply = case.send(configurations, snapshots)
            except NotConfigured:
                continue  # the case needs an optional profile input; the others still judge
            sent.append(f"{case.label}: {reply.describe()[:80]}")
            body = _json_body(reply)
            if not 400 <= reply.status < 600 or not isinstance(body, dict):
                continue  # not an error, or not JSON: other requirements judge it
            judged += 1
            received = reply.describe()
            for key, name in fields:
                received = field_received(body, key, name, received, str)
            title = f"error body of {case.label} lacks {wanted}"
            missing = [(k, n) for k, n in fields if not isinstance(body.get(n), str)]
            for key, name in missing:  # a name the profile leaves at its default: a convention
                if not snapshots.profile.declares(key):
                    conventions.differs(ids, key, name, received, title, reply)
            independent.check(
                all(not snapshots.profile.declares(key) for key, _ in missing),
                ids,
                title,
                f"an object with string {wanted} (profile errors.code_field / message_field)",
                received,
                reply,
            )
    expect(
        judged > 0,
        ids,
        "no invalid request was answered with a JSON error object",
        f"error answers with an object body carrying {wanted} "
        "(profile errors.code_field / message_field)",
        "; ".join(sent[:6]) or "no case sent",
    )


@requirement("ERR-VALIDATION-STATUS")
@pytest.mark.parametrize("case", _case_ids([c for c in CASES if c.validation]))
def test_validation_failures_answer_the_declared_status(
    configurations: Configurations, snapshots: Snapshots, case: Case
) -> None:
    ids = ("ERR-VALIDATION-STATUS",)
    if case.family == "bootstrap" and not snapshots.profile.capability("bootstrap"):
        raise Unsupported("bootstrap")
    reply = case.send(configurations, snapshots)
    wanted = snapshots.profile.errors.validation_status
    expect_declared_status(
        reply,
        snapshots.profile,
        "errors.validation_status",
        wanted,
        ids,
        f"invalid input ({case.label}) not answered {' or '.join(map(str, wanted))}",
    )


@requirement("ERR-MALFORMED-JSON")
@pytest.mark.parametrize("operation", ["create", "patch"])
def test_body_that_is_not_json_is_refused(
    configurations: Configurations, snapshots: Snapshots, operation: str
) -> None:
    ids = ("ERR-MALFORMED-JSON",)
    client = configurations.client
    profile = configurations.profile
    # errors.malformed_body_status; null: the validation status. That fallback is the key's own
    # default: a profile that does not write the key leaves it a convention, even when it
    # declares its validation status (another 4xx is then a drop-in difference, not a failure).
    malformed = profile.errors.malformed_status
    key = "errors.malformed_body_status"
    headers = {
        "Authorization": f"Bearer {profile.credentials.pat}",
        "environment_id": str(profile.environment_id("development")),
        "content-type": "application/json",
    }
    app = profile.project.application_id
    if operation == "create":
        name = client.name("broken-json")
        content = json.dumps(profile.bodies.create.content)
        raw = ('{"name": ' + json.dumps(name) + ", " + content + ": {").encode()
        path = f"/application/{app}/v2/configuration"
        reply = client.request("POST", path, headers=headers, content=raw)
        expect_declared_status(
            reply, profile, key, malformed, ids, "a create body that is not JSON"
        )
        snapshot = snapshots.snapshot()
        listed = {e.get("name") for e in configuration_entries(snapshot, ids, "the snapshot")}
        expect(name not in listed, ids, "a broken create made a configuration", "nothing", "listed")
        return
    record = configurations.create_ok("broken-patch", {"v": 1}, ids=ids)
    operations = json.dumps(profile.bodies.patch.operations)
    raw = ("{" + operations + ': [{"op": "replace", "path": "/v", "value": 2}').encode()
    reply = client.request(
        "PATCH", f"/application/{app}/v2/configuration/{record['id']}", headers=headers, content=raw
    )
    expect_declared_status(reply, profile, key, malformed, ids, "a patch body that is not JSON")
    documents = snapshots.documents("development", ids)
    expect(
        same_json(documents.get(record["id"]), {"v": 1}),
        ids,
        "a broken patch changed the content",
        repr({"v": 1}),
        repr(documents.get(record["id"])),
    )


@requirement("ERR-UNKNOWN-CONFIGURATION")
def test_unknown_configuration_is_not_found(configurations: Configurations) -> None:
    ids = ("ERR-UNKNOWN-CONFIGURATION",)
    reply = configurations.patch(UNLIKELY_ID, [{"op": "add", "path": "/a", "value": 1}])
    wanted = configurations.profile.errors.not_found_status
    expect_declared_status(
        reply,
        configurations.profile,
        "errors.not_found_status",
        wanted,
        ids,
        "unknown configuration",
    )


@requirement("ERR-UNKNOWN-PROJECT")
def test_unknown_project_is_refused(configurations: Configurations) -> None:
    ids = ("ERR-UNKNOWN-PROJECT",)
    errors = configurations.profile.errors
    refused = {errors.not_found_status, errors.forbidden_status, *errors.foreign_project_status}
    client = configurations.client
    replies = [
        client.management(
            "POST",
            "/configuration",
            application_id=UNLIKELY_ID,
            json_body=configurations.create_body(client.name("nowhere"), {"a": 1}),
        ),
        configurations.patch(
            1, [{"op": "add", "path": "/a", "value": 1}], application_id=UNLIKELY_ID
        ),
    ]
    profile, title = configurations.profile, "a request to an unknown project was not refused"
    for reply in replies:
        expect(
            status_holds(reply, profile, "errors.not_found_status", refused, ids, title),
            ids,
            title,
            "HTTP "
            + " or ".join(map(str, sorted(refused)))
            + " (profile errors.not_found_status, forbidden_status, foreign_project_status)",
            reply.describe(),
            reply,
        )


ODD_PATHS = [
    "/application/0/v2/configuration",
    "/application/-1/v2/configuration",
    "/application/99999999999999999999999/v2/configuration",
    "/application/1e400/v2/configuration",
    "/application/%00/v2/configuration",
    "/application/{app}/v2/configuration/99999999999999999999999",
    "/application/{app}/v2/configuration/0",
]
ODD_BODIES: list[JsonValue] = [None, [], "text", 12, {"name": ["list"]}, {"name": "x" * 5000}]


@requirement("ERR-NO-SERVER-ERROR")
def test_malformed_requests_never_5xx(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("ERR-NO-SERVER-ERROR",)
    client = configurations.client
    app = configurations.profile.project.application_id
    names = configurations.profile.headers
    replies: list[tuple[str, Reply]] = []
    for path in ODD_PATHS:
        method = "PATCH" if path.count("/") > 4 else "POST"
        reply = client.request(
            method,
            path.format(app=app),
            headers={
                "Authorization": f"Bearer {configurations.profile.credentials.pat}",
                "environment_id": "1",
            },
            json_body={"name": client.name("odd")},
        )
        replies.append((path, reply))
    for body in ODD_BODIES:
        replies.append((f"create body {body!r:.40}", configurations.create(body=body)))
        replies.append((f"patch body {body!r:.40}", configurations.patch(UNLIKELY_ID, body=body)))
    for header, value in [
        (names.environment, "prod uction;" * 50),
        (names.numeric, "1" * 400),
        (names.instance_id, "x" * 5000),
        ("If-None-Match", '"' * 300),
    ]:
        replies.append((f"status {header}", snapshots.status(headers={header: value})))
    replies.append(("status hash=long", snapshots.status(params={"hash": "h" * 5000})))
    with IndependentChecks() as independent:
        for label, reply in replies:
            independent.check(
                reply.status < 500,
                ids,
                f"a malformed request ({label}) caused a server error",
                "a status below 500",
                reply.describe(),
                reply,
            )
