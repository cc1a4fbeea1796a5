"""Scenarios: authentication (spec 5): personal access tokens and SDK keys, each misuse refused."""

from __future__ import annotations

import secrets

import pytest

from conformance.checks import expect, expect_status, json_object
from conformance.checks.declared import (
    expect_declared_status,
    status_expectation,
    status_holds,
    status_received,
)
from conformance.drivers.management import Configurations
from conformance.drivers.refusals import attempt_writes, expect_no_trace
from conformance.drivers.sdk import Snapshots, bracketed, configuration_entries, no_snapshot
from conformance.errors import NotConfigured, Unsupported
from conformance.json_types import JsonObject
from conformance.oracles.json_equality import same_json

requirement = pytest.mark.requirement
KEY = "errors.missing_credentials_status"


def missing_statuses(configurations: Configurations) -> tuple[int, ...]:
    return configurations.profile.errors.missing_credentials_status


# ------------------------------------------------------------------ personal access tokens


@requirement("AUTH-PAT-ACCEPTED")
def test_owner_token_is_accepted(configurations: Configurations) -> None:
    ids = ("AUTH-PAT-ACCEPTED",)
    record = configurations.create_ok("pat", {"ok": True}, ids=ids)
    configurations.patch_ok(record["id"], [{"op": "add", "path": "/more", "value": 1}], ids=ids)


def _refused_writes(
    configurations: Configurations,
    snapshots: Snapshots,
    ids: tuple[str, ...],
    statuses: tuple[int, ...],
    *,
    token: str | None,
    headers: dict[str, str] | None = None,
) -> None:
    """Create and patch with the given credentials are refused and change nothing."""
    attempt = attempt_writes(configurations, ids, "", token=token, headers=headers)
    title, profile = "a write with bad credentials was not refused", configurations.profile
    wanted = status_expectation(KEY, statuses, profile) if statuses else "a 4xx"
    for reply in attempt.replies:
        if statuses:
            ok = status_holds(reply, profile, KEY, statuses, ids, title)
        else:
            ok = 400 <= reply.status < 500
        received = status_received(reply, KEY, statuses) if statuses else reply.describe()
        expect(ok, ids, title, wanted, received, reply)
    expect_no_trace(snapshots, ids, attempt)


@requirement("AUTH-PAT-MISSING")
def test_missing_token_is_refused(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("AUTH-PAT-MISSING",)
    _refused_writes(configurations, snapshots, ids, missing_statuses(configurations), token=None)


@requirement("AUTH-PAT-INVALID")
@pytest.mark.parametrize("form", ["unknown", "no-prefix", "wrong-scheme", "empty-bearer"])
def test_invalid_token_is_refused(
    configurations: Configurations, snapshots: Snapshots, form: str
) -> None:
    ids = ("AUTH-PAT-INVALID",)
    unknown = "svc_pat_" + secrets.token_urlsafe(24)
    headers = {
        "unknown": {"Authorization": f"Bearer {unknown}"},
        "no-prefix": {"Authorization": f"Bearer {secrets.token_urlsafe(24)}"},
        "wrong-scheme": {"Authorization": f"Basic {configurations.profile.credentials.pat}"},
        "empty-bearer": {"Authorization": "Bearer"},
    }[form]
    _refused_writes(
        configurations,
        snapshots,
        ids,
        missing_statuses(configurations),
        token=None,
        headers=headers,
    )


@requirement("AUTH-SDK-KEY-NO-MANAGEMENT")
def test_sdk_key_cannot_manage(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-KEY-NO-MANAGEMENT",)
    key = snapshots.key("development").key
    _refused_writes(configurations, snapshots, ids, (), token=key)


@requirement("AUTH-PAT-FOREIGN-PROJECT")
def test_token_cannot_write_another_owners_project(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("AUTH-PAT-FOREIGN-PROJECT",)
    project = configurations.profile.project
    if project.foreign_application_id is None or project.foreign_environment_id is None:
        missing = "application" if project.foreign_application_id is None else "environment"
        raise NotConfigured(
            f"project.foreign_{missing}_id",
            "the profile names no foreign project and environment to aim a write at",
        )
    name = configurations.client.name("foreign-write")
    reply = configurations.client.management(
        "POST",
        "/configuration",
        environment=project.foreign_environment_id,
        application_id=project.foreign_application_id,
        json_body=configurations.create_body(name, {"x": 1}),
    )
    expect_declared_status(
        reply,
        configurations.profile,
        "errors.foreign_project_status",
        configurations.profile.errors.foreign_project_status,
        ids,
        "a token wrote to a project its owner cannot reach",
    )
    _no_patch_across_projects(configurations, ids)
    foreign_key = configurations.profile.credentials.foreign_sdk_key
    if foreign_key is not None:
        body = snapshots.body(configurations.client.status(key=foreign_key), ids)
        entries = configuration_entries(body, ids, "the foreign project's snapshot")
        names = {e.get("name") for e in entries}
        expect(
            name not in names,
            ids,
            "the refused write still created a configuration in the foreign project",
            f"no {name!r}",
            "listed",
        )


def _no_patch_across_projects(configurations: Configurations, ids: tuple[str, ...]) -> None:
    """A patch sent through the foreign project's path (its environment, this project's
    configuration id) is refused with the same status, and this project's configuration keeps
    its content: the token acts as its owner, on update as on create (spec 5)."""
    project = configurations.profile.project
    assert project.foreign_application_id is not None
    assert project.foreign_environment_id is not None
    mine = configurations.create_ok("cross-project", {"kept": True}, ids=ids)
    reply = configurations.patch(
        mine["id"],
        [{"op": "replace", "path": "/kept", "value": False}],
        environment=project.foreign_environment_id,
        application_id=project.foreign_application_id,
    )
    expect_declared_status(
        reply,
        configurations.profile,
        "errors.foreign_project_status",
        configurations.profile.errors.foreign_project_status,
        ids,
        "a token patched through a project its owner cannot reach",
    )
    kept = configurations.current(mine, ids).get("configuration")  # the record's field (2.1)
    expect(
        same_json(kept, {"kept": True}),
        ids,
        "the refused cross-project patch still changed the configuration",
        "content {'kept': true}",
        repr(kept),
    )


# ------------------------------------------------------------------ SDK keys


@requirement("AUTH-SDK-KEY-ACCEPTED")
def test_current_keys_are_accepted(snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-KEY-ACCEPTED",)
    keys = [k for k in snapshots.profile.credentials.sdk_keys if k.key.startswith("svc_pk_")]
    if not keys:
        raise NotConfigured("credentials.sdk_keys", "the profile has no svc_pk_ key")
    for key in keys:
        reply = snapshots.client.status(key=key.key, environment=key.environments[0])
        expect_status(reply, 200, ids, "a raw svc_pk_ key was refused")


@requirement("AUTH-SDK-LEGACY-PREFIX")
def test_legacy_key_is_accepted(snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-LEGACY-PREFIX",)
    legacy = snapshots.profile.credentials.legacy_sdk_key
    if legacy is None:
        raise NotConfigured("credentials.legacy_sdk_key")
    if not legacy.key.startswith("sdk_"):
        raise NotConfigured(
            "credentials.legacy_sdk_key",
            "the configured legacy key does not start with sdk_ (spec 5, 9.2): it cannot show "
            "that older keys are accepted",
        )
    endpoints = ["status"] + (["bootstrap"] if snapshots.profile.capability("bootstrap") else [])
    for endpoint in endpoints:
        for environment in legacy.environments:
            reply = snapshots.client.sdk(f"/{endpoint}", key=legacy.key, environment=environment)
            expect_status(reply, 200, ids, f"a legacy sdk_ key was refused on {endpoint}")


@requirement("AUTH-SDK-MISSING")
@pytest.mark.parametrize("endpoint", ["status", "bootstrap"])
def test_sdk_without_key_is_refused(snapshots: Snapshots, endpoint: str) -> None:
    ids = ("AUTH-SDK-MISSING",)
    if endpoint == "bootstrap" and not snapshots.profile.capability("bootstrap"):
        raise Unsupported("bootstrap")
    reply = snapshots.client.sdk(f"/{endpoint}", key=None, environment="development")
    statuses = snapshots.profile.errors.missing_credentials_status
    title = f"{endpoint} without a key was not refused"
    expect(
        status_holds(reply, snapshots.profile, KEY, statuses, ids, title) and no_snapshot(reply),
        ids,
        title,
        status_expectation(KEY, statuses, snapshots.profile) + " without a snapshot",
        status_received(reply, KEY, statuses),
        reply,
    )


@requirement("AUTH-SDK-INVALID")
@pytest.mark.parametrize("form", ["unknown-svc", "unknown-legacy", "no-prefix", "bearer-key"])
def test_sdk_with_unknown_key_is_refused(snapshots: Snapshots, form: str) -> None:
    ids = ("AUTH-SDK-INVALID",)
    value = {
        "unknown-svc": "svc_pk_" + secrets.token_urlsafe(24),
        "unknown-legacy": "sdk_" + secrets.token_urlsafe(24),
        "no-prefix": secrets.token_urlsafe(24),
        "bearer-key": "Bearer svc_pk_" + secrets.token_urlsafe(24),
    }[form]
    snapshots.client.redactor.add(value, "$UNKNOWN_KEY")
    reply = snapshots.client.status(key=value, environment="development")
    statuses = snapshots.profile.errors.missing_credentials_status
    title = "an unknown key was not refused"
    expect(
        status_holds(reply, snapshots.profile, KEY, statuses, ids, title) and no_snapshot(reply),
        ids,
        title,
        status_expectation(KEY, statuses, snapshots.profile) + " without a snapshot",
        status_received(reply, KEY, statuses),
        reply,
    )


@requirement("AUTH-SDK-PAT-REFUSED")
def test_pat_is_not_an_sdk_key(snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-PAT-REFUSED",)
    pat = snapshots.profile.credentials.pat
    client = snapshots.client
    endpoints = [client.status]  # every /sdk/v2/* endpoint the target serves (spec 5)
    if snapshots.profile.capability("bootstrap"):
        endpoints.append(client.bootstrap)
    for endpoint in endpoints:
        for value in (pat, f"Bearer {pat}"):
            reply = endpoint(key=value, environment="development")
            expect(
                400 <= reply.status < 500 and no_snapshot(reply),
                ids,
                "a personal access token was served as an SDK key",
                "a 4xx without a snapshot",
                reply.describe(),
                reply,
            )


def _foreign(snapshots: Snapshots, ids: tuple[str, ...]) -> JsonObject:
    key = snapshots.profile.credentials.foreign_sdk_key
    if key is None:
        raise NotConfigured("credentials.foreign_sdk_key")
    return snapshots.body(snapshots.client.status(key=key), ids, "the foreign key's snapshot")


@requirement("AUTH-SDK-PROJECT-SCOPED")
def test_keys_see_only_their_project(configurations: Configurations, snapshots: Snapshots) -> None:
    ids = ("AUTH-SDK-PROJECT-SCOPED",)
    mine = configurations.create_ok("scoped", {"mine": True}, ids=ids)
    foreign = _foreign(snapshots, ids)
    foreign_ids = {e.get("id") for e in configuration_entries(foreign, ids, "the foreign snapshot")}
    expect(
        mine["id"] not in foreign_ids,
        ids,
        "another project's key sees this project's configuration",
        f"id {mine['id']} absent from the foreign snapshot",
        "present",
    )
    own = snapshots.snapshot("development", ids)
    own_ids = {e.get("id") for e in configuration_entries(own, ids, "the development snapshot")}
    expect(
        mine["id"] in own_ids and not (foreign_ids & own_ids),
        ids,
        "this project's snapshot holds another project's configurations",
        "only own configurations",
        f"shared ids {sorted(foreign_ids & own_ids, key=str)}",
    )
    if snapshots.profile.capability("bootstrap"):
        _bootstraps_see_only_their_project(snapshots, ids, mine["id"])


def _bootstraps_see_only_their_project(
    snapshots: Snapshots, ids: tuple[str, ...], mine: object
) -> None:
    """The same on bootstrap: the foreign key's bootstrap holds none of this project's
    configurations, and this project's bootstrap none of the foreign project's."""
    key = snapshots.profile.credentials.foreign_sdk_key
    assert key is not None
    foreign = snapshots.body(snapshots.client.bootstrap(key=key), ids, "the foreign bootstrap")
    foreign_ids = {
        e.get("id") for e in configuration_entries(foreign, ids, "the foreign bootstrap")
    }
    own = snapshots.body(snapshots.bootstrap("development"), ids, "the development bootstrap")
    own_ids = {e.get("id") for e in configuration_entries(own, ids, "the development bootstrap")}
    expect(
        mine not in foreign_ids and mine in own_ids and not (foreign_ids & own_ids),
        ids,
        "a bootstrap holds another project's configurations",
        f"id {mine} only in this project's bootstrap, no id in both",
        f"foreign bootstrap holds it: {mine in foreign_ids}; shared ids "
        f"{sorted(foreign_ids & own_ids, key=str)}",
    )


@requirement("AUTH-SDK-NUMERIC-NO-ESCAPE")
def test_numeric_header_cannot_reach_another_project(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    ids = ("AUTH-SDK-NUMERIC-NO-ESCAPE",)
    foreign_app = snapshots.profile.project.foreign_application_id
    if foreign_app is None:
        raise NotConfigured("project.foreign_application_id")
    configurations.create_ok("no-escape", {"mine": True}, ids=ids)
    foreign = _foreign(snapshots, ids)
    foreign_ids = {e.get("id") for e in configuration_entries(foreign, ids, "the foreign snapshot")}
    reply = snapshots.status(headers={snapshots.profile.headers.numeric: str(foreign_app)})
    if reply.status != 200:
        return  # refused: nothing escaped
    body = json_object(reply, ids)
    seen = {e.get("id") for e in body.get("configurations", []) if isinstance(e, dict)}
    expect(
        not (seen & foreign_ids) and not same_json(body.get("hash"), foreign.get("hash")),
        ids,
        "the numeric header reached another project's snapshot",
        "a refusal or the key's own snapshot",
        f"foreign ids {sorted(seen & foreign_ids, key=str)} served",
        reply,
    )


@requirement("VER-LEGACY-KEY-SAME-SNAPSHOT")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_legacy_key_gets_the_same_snapshot(snapshots: Snapshots) -> None:
    ids = ("VER-LEGACY-KEY-SAME-SNAPSHOT",)
    legacy = snapshots.profile.credentials.legacy_sdk_key
    if legacy is None:
        raise NotConfigured("credentials.legacy_sdk_key")
    environment = legacy.environments[0]
    current = snapshots.key_covering(environment).key

    def read(key: str) -> object:
        reply = snapshots.client.status(key=key, environment=environment)
        return json_object(reply, ids).get("hash") if reply.status == 200 else reply.status

    modern, old = bracketed(lambda: read(current), lambda: read(legacy.key), ids)
    expect(
        modern == old,
        ids,
        "a legacy key gets another snapshot than a current key",
        f"hash {modern!r}",
        repr(old),
    )
