"""Scenarios: the experiment endpoints' refusals and credentials (spec 4.2, 5, 7).

``ENDPOINTS`` (``experiment_endpoints``) is the table of the 15 operations of 4.2 with the body
each is called with; the credential scenarios walk it. Create refusals are case tables whose
description is the failure message; each also checks that nothing was created.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

import pytest

from conformance.checks import IndependentChecks, expect, json_object, media_expected, media_problem
from conformance.checks.declared import status_expectation, status_holds, status_received
from conformance.drivers.call_options import ManagementOptions
from conformance.drivers.experiments import UNKNOWN_EXPERIMENT_ID, Experiments
from conformance.drivers.steps import body_of, ok
from conformance.errors import NotApplicable, NotConfigured
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.json_equality import same_json
from conformance.stages.scenarios.experiment_endpoints import (
    BASE,
    ENDPOINTS,
    MORE_GOLD,
    PER_EXPERIMENT,
    Subject,
    send,
    subject_of,
)

requirement = pytest.mark.requirement


def _names(experiments: Experiments, ids: tuple[str, ...]) -> dict[str, JsonObject]:
    return {str(item.get("name")): item for item in experiments.listed(ids)}


# ------------------------------------------------------------------ credentials


@requirement("AUTH-EXP-PAT-ACCEPTED", "EXP-RESPONSE-CONTENT-TYPE-JSON")
def test_every_endpoint_answers_the_owner_in_json(experiments: Experiments) -> None:
    accepted = ("AUTH-EXP-PAT-ACCEPTED",)
    media = ("EXP-RESPONSE-CONTENT-TYPE-JSON",)
    subject = subject_of(experiments, "tour", assigned=False)
    refused = set(experiments.profile.errors.missing_credentials_status) | {
        experiments.profile.errors.forbidden_status
    }
    with IndependentChecks() as independent:
        for entry in ENDPOINTS:
            reply = send(experiments, entry, subject)
            independent.check(
                ok(reply) and reply.status not in refused,
                accepted,
                f"{entry[0]} refused the owner's token",
                "HTTP 2xx",
                reply.describe(),
                reply,
            )
            if ok(reply):
                received = media_problem(reply.headers)
                independent.check(
                    received is None,
                    media,
                    f"{entry[0]} did not answer application/json",
                    media_expected(),
                    received or "",
                    reply,
                )


# description of the credentials -> keyword arguments of ``_send`` that send them
Credentials = dict[str, ManagementOptions]


def _refused_everywhere(
    experiments: Experiments,
    label: str,
    ids: tuple[str, ...],
    credentials: Credentials,
    wanted: set[int],
) -> None:
    """Every endpoint called with each set of bad ``credentials`` answers a status in ``wanted``
    (``errors.missing_credentials_status``, at the level the profile gives it), and none of the
    refused writes (create, assign, unenroll, rollout, terminate) took effect."""
    subject = subject_of(experiments, label)
    before = _before(experiments, subject)
    key = "errors.missing_credentials_status"
    expected = status_expectation(key, wanted, experiments.profile)
    with IndependentChecks() as independent:
        for what, extra in credentials.items():
            for entry in ENDPOINTS:
                reply = send(experiments, entry, subject, **extra)
                title = f"{entry[0]} {what} was not refused"
                independent.check(
                    status_holds(reply, experiments.profile, key, wanted, ids, title),
                    ids,
                    title,
                    expected,
                    reply.describe(),
                    reply,
                )
        _unchanged(experiments, subject, before, independent, ids)


@requirement("AUTH-EXP-MISSING")
def test_every_endpoint_refuses_missing_credentials(experiments: Experiments) -> None:
    _refused_everywhere(
        experiments,
        "nocreds",
        ("AUTH-EXP-MISSING",),
        {"without credentials": {"token": None}},
        set(experiments.profile.errors.missing_credentials_status),
    )


@requirement("AUTH-EXP-INVALID")
def test_every_endpoint_refuses_an_invalid_token(experiments: Experiments) -> None:
    pat = experiments.profile.credentials.pat
    _refused_everywhere(
        experiments,
        "badtoken",
        ("AUTH-EXP-INVALID",),
        {
            f"with {what}": {"token": None, "headers": {"Authorization": value}}
            for what, value in (
                ("an unknown svc_pat_ token", f"Bearer svc_pat_{secrets.token_urlsafe(24)}"),
                ("a token without the svc_pat_ prefix", f"Bearer {secrets.token_urlsafe(24)}"),
                ("an empty bearer", "Bearer"),
                ("the owner's token under the Basic scheme", f"Basic {pat}"),
            )
        },
        set(experiments.profile.errors.missing_credentials_status),
    )


@requirement("AUTH-EXP-SDK-KEY-REFUSED")
def test_an_sdk_key_cannot_manage_experiments(experiments: Experiments) -> None:
    key = experiments.snapshots.key(experiments.environment).key
    errors = experiments.profile.errors
    _refused_everywhere(
        experiments,
        "sdkkey",
        ("AUTH-EXP-SDK-KEY-REFUSED",),
        {
            "with an SDK key as a bearer token": {"token": key},
            "with an SDK key as the raw authorization": {
                "token": None,
                "headers": {"Authorization": key},
            },
        },
        {*errors.missing_credentials_status, errors.forbidden_status},
    )


def _before(experiments: Experiments, subject: Subject) -> tuple[JsonValue, bool]:
    """The rollout and whether the unit is listed active, before the refused calls."""
    rollout = body_of(experiments.rollout(subject.experiment_id))
    members = experiments.by_unit(experiments.members(subject.experiment_id, ()))
    return rollout, experiments.is_active(members.get(subject.unit, {}))


def _unchanged(
    experiments: Experiments,
    subject: Subject,
    before: tuple[JsonValue, bool],
    independent: IndependentChecks,
    ids: tuple[str, ...],
) -> None:
    """Nothing the refused calls asked for happened (as far as the target lets us see)."""
    rollout, listed_active = before
    status = experiments.status_of(subject.experiment_id)
    independent.check(
        not same_json(status, experiments.p.terminated),
        ids,
        "a refused terminate ended the experiment",
        "still running",
        repr(status),
    )
    if listed_active:  # else the member list cannot show it (EXP-MEMBERS checks that)
        member = experiments.by_unit(experiments.members(subject.experiment_id, ())).get(
            subject.unit, {}
        )
        independent.check(
            experiments.is_active(member),
            ids,
            "a refused unenroll changed the member",
            "the unit still active",
            repr(member or "(absent)"),
        )
    after = body_of(experiments.rollout(subject.experiment_id))
    independent.check(
        same_json(after, rollout),
        ids,
        "a refused rollout change changed the rollout",
        repr(rollout),
        repr(after),
    )
    made = subject.create_body["name"]
    independent.check(
        made not in _names(experiments, ()),
        ids,
        "a refused create made an experiment",
        f"no experiment named {made!r}",
        "one is listed",
    )


@requirement("AUTH-EXP-FOREIGN-PROJECT")
def test_another_owners_project_is_forbidden(experiments: Experiments) -> None:
    ids = ("AUTH-EXP-FOREIGN-PROJECT",)
    project = experiments.profile.project
    if project.foreign_application_id is None or project.foreign_environment_id is None:
        missing = "application" if project.foreign_application_id is None else "environment"
        raise NotConfigured(
            f"project.foreign_{missing}_id",
            "the profile names no foreign project (project.foreign_application_id"
            " and project.foreign_environment_id)",
        )
    subject = subject_of(experiments, "foreign", assigned=False)
    key = "errors.foreign_project_status"
    refused = experiments.profile.errors.foreign_project_status
    with IndependentChecks() as independent:
        for entry in ENDPOINTS:
            reply = send(
                experiments,
                entry,
                subject,
                application_id=project.foreign_application_id,
                environment=project.foreign_environment_id,
            )
            title = f"{entry[0]} on another owner's project was not refused"
            independent.check(
                status_holds(reply, experiments.profile, key, refused, ids, title),
                ids,
                title,
                status_expectation(key, refused, experiments.profile),
                status_received(reply, key, refused),
                reply,
            )


# ------------------------------------------------------------------ unknown ids


@requirement("EXP-UNKNOWN-ID")
def test_unknown_experiment_is_not_found(experiments: Experiments) -> None:
    ids = ("EXP-UNKNOWN-ID",)
    subject = subject_of(experiments, "unknown", assigned=False)
    listed = {item.get("id") for item in experiments.listed(ids)}
    unknown = UNKNOWN_EXPERIMENT_ID
    while unknown in listed:
        unknown += 1
    wanted = experiments.profile.errors.not_found_status
    with IndependentChecks() as independent:
        for entry in PER_EXPERIMENT:
            reply = send(experiments, entry, subject, experiment_id=unknown)
            key, title = "errors.not_found_status", f"{entry[0]} on an unknown experiment"
            independent.check(
                status_holds(reply, experiments.profile, key, wanted, ids, title),
                ids,
                title,
                status_expectation(key, wanted, experiments.profile),
                status_received(reply, "errors.not_found_status", wanted),
                reply,
            )


@requirement("EXP-CONTEXT-PROPERTIES")
def test_context_properties_answer_a_list(experiments: Experiments) -> None:
    ids = ("EXP-CONTEXT-PROPERTIES",)
    reply = experiments.context_properties()
    expect(ok(reply), ids, "context properties failed", "HTTP 200", reply.describe(), reply)
    items = json_object(reply, ids).get(experiments.p.items)
    name = experiments.p.property_name
    expect(
        isinstance(items, list)
        and all(isinstance(i, dict) and isinstance(i.get(name), str) for i in items),
        ids,
        "context properties answered no list of named properties",
        f"an object with {experiments.p.items!r}: [{{{name}: string, ...}}]",
        reply.describe(),
        reply,
    )


# ------------------------------------------------------------------ create refusals

Mutation = Callable[[dict[str, object], Experiments], None]


def _drop(field: str) -> Mutation:
    def mutate(body: dict[str, object], experiments: Experiments) -> None:
        body.pop(field, None)

    return mutate


def _put(field: str, value: Callable[[Experiments], object]) -> Mutation:
    def mutate(body: dict[str, object], experiments: Experiments) -> None:
        body[field] = value(experiments)

    return mutate


def _weights(shares: Callable[[int], list[int]]) -> Mutation:
    def mutate(body: dict[str, object], experiments: Experiments) -> None:
        total = experiments.profile.experiments.weight_total
        if total is None:  # no fixed total: no sum can miss it (a choice, not an exception)
            raise NotApplicable(
                "experiments.weight_total",
                "null",
                reason="not applicable: the profile declares experiments.weight_total: null, "
                "so the weights have no fixed total to miss",
            )
        groups = body["groups"]
        if not isinstance(groups, list):
            raise TypeError(f"the groups of a create body the suite built: {groups!r}")
        for group, weight in zip(groups, shares(total), strict=True):
            group["weight"] = weight

    return mutate


def _group_count(count: Callable[[Experiments], int]) -> Mutation:
    def mutate(body: dict[str, object], experiments: Experiments) -> None:
        n = count(experiments)
        body["groups"] = experiments.groups([[]] * n) if n else []

    return mutate


def _window(body: dict[str, object], experiments: Experiments) -> None:
    body["startsAt"] = "2031-01-02T00:00:00.000Z"
    body["endsAt"] = "2031-01-01T00:00:00.000Z"


# requirement id -> [(description, mutation of a valid two-group weighted body)]
CREATE_REFUSALS: dict[str, list[tuple[str, Mutation]]] = {
    "EXP-CREATE-INVALID-FIELDS": [
        ("a create without a name", _drop("name")),
        ("a create without a base configuration", _drop("baseConfigurationId")),
        ("a create without groups", _drop("groups")),
        (
            "a create with an undeclared unit type",
            _put("unitType", lambda e: "-".join(e.profile.experiments.unit_types) + "-other"),
        ),
        (
            "a create with an undeclared assignment mode",
            _put("assignmentMode", lambda e: "".join(e.profile.experiments.assignment_modes) + "X"),
        ),
        ("a create whose endsAt is before its startsAt", _window),
    ],
    "EXP-CREATE-INVALID-WEIGHTS": [
        ("weights below the total", _weights(lambda t: [t // 2, t // 2 - 1])),
        ("weights above the total", _weights(lambda t: [t // 2, t // 2 + 1 + t % 2])),
        ("a negative weight", _weights(lambda t: [t + 1, -1])),
    ],
    "EXP-CREATE-INVALID-GROUP-COUNT": [
        ("no group", _group_count(lambda e: 0)),
        (
            "more groups than the declared maximum",
            _group_count(lambda e: e.profile.experiments.max_groups + 1),
        ),
    ],
    "EXP-CREATE-INVALID-BASE-CONFIG": [
        ("an unknown base configuration", _put("baseConfigurationId", lambda e: 987_654_321)),
        (
            "a base configuration of another environment",
            _put("baseConfigurationId", lambda e: _other_environment_base(e)),
        ),
    ],
}


def _other_environment_base(experiments: Experiments) -> JsonValue:
    if not experiments.p.environment_header:  # the experiments take no environment input
        raise NotConfigured(
            "experiment_payload.environment_header",
            "false: an experiment names no environment, so none is another one",
        )
    others = [a for a in experiments.profile.project.environments if a != experiments.environment]
    if not others:
        raise NotConfigured(
            "project.environments",
            "the profile names only one environment: a base configuration of another "
            "environment needs a second",
        )
    home = experiments.environment
    experiments.environment = others[0]
    try:
        return experiments.base(BASE, "elsewhere")["id"]
    finally:
        experiments.environment = home


@pytest.mark.parametrize(
    "requirement_id",
    [pytest.param(rid, marks=requirement(rid), id=rid) for rid in CREATE_REFUSALS],
)
def test_invalid_create_is_refused(experiments: Experiments, requirement_id: str) -> None:
    ids = (requirement_id,)
    base = experiments.base(BASE)
    names = []
    with IndependentChecks() as independent:
        for index, (what, mutate) in enumerate(CREATE_REFUSALS[requirement_id]):
            body = experiments.body(
                f"refused-{requirement_id.lower()}-{index}",
                base["id"],
                experiments.groups([[], MORE_GOLD]),
            )
            names.append(body["name"])
            mutate(body, experiments)
            reply = experiments.create(body)
            independent.check(
                400 <= reply.status < 500,
                ids,
                f"{what} was accepted",
                "a 4xx",
                reply.describe(),
                reply,
            )
        made = [
            item
            for item in experiments.listed(ids)
            if item.get("name") in names or same_json(item.get("baseConfigurationId"), base["id"])
        ]
        independent.check(
            not made,
            ids,
            "a refused create made an experiment",
            "no new experiment",
            repr([(i.get("id"), i.get("name")) for i in made]),
        )
