"""Scenarios: an experiment's life (spec 2.4, 2.5, 3, 4.2): create, list, get, snapshot, end."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from conformance.checks import IndependentChecks, conventions, expect, json_object
from conformance.checks.declared import status_expectation, status_holds
from conformance.drivers.experiment_bodies import WEIGHTED
from conformance.drivers.experiment_names import TOP as CREATE_NAMES
from conformance.drivers.experiments import SUMMARY_FIELDS, Experiments, group_ids
from conformance.drivers.steps import body_of, ok, setup_failed
from conformance.json_types import JsonObject, JsonValue, objects_in
from conformance.oracles.json_equality import same_json
from conformance.stages.scenarios.summary_judgement import judge_summary
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement

BASE: JsonObject = {"economy": {"startingGold": 100, "shop": "open"}, "flags": {"night": False}}
MORE_GOLD: list[JsonObject] = [{"op": "set", "path": ["economy", "startingGold"], "value": 200}]


def _two_groups(experiments: Experiments, mode: str = WEIGHTED) -> list[dict[str, object]]:
    return experiments.groups([[], MORE_GOLD], [1, 1], mode)


def _created(
    experiments: Experiments, label: str, mode: str = WEIGHTED, unit_type: str | None = None
) -> dict[str, Any]:
    base = experiments.base(BASE)
    return experiments.create_ok(
        label, base["id"], _two_groups(experiments, mode), mode=mode, unit_type=unit_type
    )


@requirement("EXP-CREATE")
def test_create_answers_the_new_experiment(experiments: Experiments) -> None:
    ids = ("EXP-CREATE",)
    base = experiments.base(BASE)
    first = experiments.create_ok("create", base["id"], _two_groups(experiments), ids=ids)
    second = experiments.create_ok("create", base["id"], _two_groups(experiments), ids=ids)
    missing = [name for name in SUMMARY_FIELDS if name not in first]
    # A field under a name the target may declare (experiment_payload.create) and did not: the
    # record's names are not shown (spec 2.5 gaps, 4.2), so a miss is a drop-in difference.
    keyed = {summary: key for key, summary in CREATE_NAMES.items()}
    for name in [n for n in missing if n in keyed]:
        key = f"experiment_payload.create.{keyed[name]}"
        if not experiments.profile.declares(key):
            title = f"the create answer has no {name!r} (under the convention's name)"
            conventions.differs(ids, key, name, f"no field {name!r}", title, None)
            missing.remove(name)
    expect(
        not missing,
        ids,
        "the created experiment lacks summary fields",
        "every field of spec 2.5 (under the names experiment_payload.create declares)",
        f"missing: {', '.join(missing)}",
    )
    expect(
        not same_json(first["id"], second["id"]),
        ids,
        "two creates share an id",
        "two distinct ids",
        f"{first['id']!r} twice",
    )


@requirement("EXP-CREATE-UNIT-TYPES")
def test_every_declared_unit_type_can_be_used(experiments: Experiments) -> None:
    _each_declared_value_is_created(
        experiments,
        ("EXP-CREATE-UNIT-TYPES",),
        "unitType",
        experiments.profile.experiments.unit_types,
        lambda unit_type: experiments.body(
            f"type-{unit_type}",
            experiments.base(BASE)["id"],
            _two_groups(experiments),
            unit_type=unit_type,
        ),
    )


@requirement("EXP-CREATE-ASSIGNMENT-MODES")
def test_every_declared_assignment_mode_can_be_used(experiments: Experiments) -> None:
    _each_declared_value_is_created(
        experiments,
        ("EXP-CREATE-ASSIGNMENT-MODES",),
        "assignmentMode",
        experiments.profile.experiments.assignment_modes,
        lambda mode: experiments.body(
            f"mode-{mode}", experiments.base(BASE)["id"], _two_groups(experiments, mode), mode=mode
        ),
    )


def _each_declared_value_is_created(
    experiments: Experiments,
    ids: tuple[str, ...],
    field: str,
    values: Sequence[str],
    body_for: Callable[[str], dict[str, object]],
) -> None:
    """Each value the profile declares for ``field`` is accepted and reported back as sent."""
    created, key = experiments.profile.statuses.create_experiment, "statuses.create_experiment"
    with IndependentChecks() as independent:
        for value in values:
            reply = experiments.create(body_for(value))
            if not 200 <= reply.status < 300:
                experiments.refused_by_names(reply, ids)
            record = experiments.record(reply)
            title = f"{field} {value!r} was not accepted and reported"
            independent.check(
                status_holds(reply, experiments.profile, key, created, ids, title)
                and isinstance(record, dict)
                and same_json(record.get(field), value),
                ids,
                title,
                f"{status_expectation(key, created, experiments.profile)} with {field} {value!r}",
                reply.describe(),
                reply,
            )


@requirement("EXP-LIST")
def test_list_finds_the_created_experiments(experiments: Experiments) -> None:
    ids = ("EXP-LIST",)
    made = {_created(experiments, f"list-{n}")["id"] for n in range(2)}
    listed = {item.get("id") for item in experiments.listed(ids)}
    expect(
        made <= listed,
        ids,
        "a created experiment is missing from the list",
        f"ids {sorted(made)} listed",
        f"missing: {sorted(made - listed)}",
    )
    # Two pages of one item: with two experiments or more, the second page follows the declared
    # pagination (experiment_payload.pagination) past the first.
    first = [item.get("id") for item in experiments.pages("", ids, limit=1, max_pages=2)]
    expect(
        len(first) == 2 and not same_json(first[0], first[1]),
        ids,
        "the list does not page on past its first page",
        "two pages of one experiment each, the second another one "
        f"(profile experiment_payload.pagination: {experiments.p.pagination})",
        f"ids {first}",
    )


@requirement("EXP-GET")
def test_get_returns_what_was_created(experiments: Experiments) -> None:
    ids = ("EXP-GET",)
    base = experiments.base(BASE)
    groups = _two_groups(experiments)
    body = experiments.body("get", base["id"], groups)
    record = experiments.create_body_ok(body)
    reply = experiments.get(record["id"])
    expect(ok(reply), ids, "get experiment failed", "HTTP 200", reply.describe(), reply)
    json_object(reply, ids, "an experiment")  # a JSON object, else a violation
    got = experiments.record(reply)
    assert isinstance(got, dict)
    with IndependentChecks() as independent:
        for name in ("name", "unitType", "assignmentMode", "baseConfigurationId"):
            independent.check(
                same_json(got.get(name), body[name]),
                ids,
                f"{name} differs from the create",
                repr(body[name]),
                repr(got.get(name, "(absent)")),
                reply,
            )
        sent = experiments.shares([(g["label"], g.get("weight")) for g in groups])
        seen = experiments.shares(
            [(g.get("label"), g.get("weight")) for g in objects_in(got.get("groups"))]
        )
        independent.check(
            sorted(seen, key=repr) == sorted(sent, key=repr),
            ids,
            "groups differ from the create",
            repr(sent),
            repr(seen),
            reply,
        )


@requirement("EXP-SNAPSHOT-BY-UNIT-TYPE")
def test_running_experiment_is_listed_under_its_unit_type(experiments: Experiments) -> None:
    ids = ("EXP-SNAPSHOT-BY-UNIT-TYPE",)
    with IndependentChecks() as independent:
        for unit_type in experiments.profile.experiments.unit_types:
            record = _created(experiments, f"snap-{unit_type}", unit_type=unit_type)
            _, _, snapshot = experiments.summary(record["id"])
            arrays = snapshot.get("experiments")
            holding = sorted(
                str(name)
                for name, entries in (arrays.items() if isinstance(arrays, dict) else ())
                if isinstance(entries, list)
                and any(
                    isinstance(e, dict) and same_json(e.get("id"), record["id"]) for e in entries
                )
            )
            independent.check(
                holding == [unit_type],
                ids,
                f"a running {unit_type} experiment is not listed under {unit_type} only",
                f"experiments.{unit_type} holds id {record['id']}",
                f"listed under: {holding or 'none'}",
            )


@requirement(
    "EXP-SNAPSHOT-SUMMARY-FIELDS",
    "EXP-SNAPSHOT-GROUP-FIELDS",
    "EXP-SNAPSHOT-GROUP-CONVENTIONS",
    "EXP-SNAPSHOT-MATCHES-EXPERIMENT",
    "EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION",
)
def test_snapshot_summary_describes_the_experiment(experiments: Experiments) -> None:
    """For every unit type the target runs (each summarised in its own array), with a name no
    slug keeps (capitals, a space): spec 2.5's name is any string."""
    base = experiments.base(BASE)
    for unit_type in experiments.profile.experiments.unit_types:
        judge_summary(experiments, base["id"], unit_type, MORE_GOLD)


def _expect_hash_moves(
    experiments: Experiments, ids: tuple[str, ...], what: str, change: Callable[[], object]
) -> None:
    """The stable snapshot hash after ``change`` differs from the one before it."""
    before = experiments.stable_hash()
    change()
    after = experiments.stable_hash()
    expect(
        after != before,
        ids,
        f"{what} left the snapshot hash unchanged",
        "a new snapshot hash",
        f"still {before}",
    )


@requirement("EXP-SNAPSHOT-HASH-MOVES-ON-CREATE")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_snapshot_hash_moves_when_an_experiment_is_created(experiments: Experiments) -> None:
    ids = ("EXP-SNAPSHOT-HASH-MOVES-ON-CREATE",)
    base = experiments.base(BASE)

    def create() -> None:
        experiments.create_ok("hash-create", base["id"], _two_groups(experiments))

    _expect_hash_moves(experiments, ids, "creating an experiment", create)


@requirement("EXP-SNAPSHOT-HASH-MOVES-ON-CHANGE")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_snapshot_hash_moves_when_weights_change(experiments: Experiments) -> None:
    ids = ("EXP-SNAPSHOT-HASH-MOVES-ON-CHANGE",)
    record = _created(experiments, "hash-change")
    first, second = group_ids(record)
    new = experiments.weights([3, 1])

    def change_weights() -> None:
        reply = experiments.change_rollout(record["id"], weights={first: new[0], second: new[1]})
        if not ok(reply):
            raise setup_failed("change the group weights (EXP-ROLLOUT-CHANGE checks that)", reply)

    _expect_hash_moves(experiments, ids, "new group weights", change_weights)


@requirement("EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE")
@pytest.mark.serial  # judges the snapshot holding still: nothing else in flight
def test_snapshot_hash_moves_when_an_experiment_ends(experiments: Experiments) -> None:
    ids = ("EXP-SNAPSHOT-HASH-MOVES-ON-TERMINATE",)
    record = _created(experiments, "hash-end")

    def terminate() -> None:
        reply = experiments.terminate(record["id"])
        if not ok(reply):
            raise setup_failed("terminate the experiment (EXP-TERMINATE checks that)", reply)

    _expect_hash_moves(experiments, ids, "terminating an experiment", terminate)


@requirement("EXP-TERMINATE")
def test_terminate_ends_the_experiment(experiments: Experiments) -> None:
    ids = ("EXP-TERMINATE",)
    record = _created(experiments, "terminate")
    _expect_under_way(experiments, record["id"], ids)
    reply = experiments.terminate(record["id"])
    expect(ok(reply), ids, "terminate was refused", "HTTP 2xx", reply.describe(), reply)
    status = experiments.status_of(record["id"])
    expect(
        same_json(status, experiments.p.terminated),
        ids,
        "the experiment does not show terminated",
        f"status {experiments.p.terminated!r}",
        repr(status),
    )


def _expect_under_way(experiments: Experiments, experiment_id: object, ids: Sequence[str]) -> None:
    """The experiment, before termination, shows the active word (``experiment_payload.running``):
    declared, a miss fails; left at its default, a miss is a drop-in difference."""
    p, key = experiments.p, "experiment_payload.running"
    status = experiments.status_of(experiment_id)
    title = "the experiment under way does not show the active word"
    if same_json(p.running, status):
        return
    if not experiments.profile.declares(key) and not same_json(p.terminated, status):
        conventions.differs(ids, key, p.running, f"status {status!r}", title, None)
        return
    expect(False, ids, title, f"status {p.running!r} (profile {key})", repr(status))


def _unstamped(reply: Reply) -> JsonValue:
    """The experiment record as read back, without its last-change stamp (a no-op may touch it)."""
    record = body_of(reply)
    if isinstance(record, dict):
        return {k: v for k, v in record.items() if k != "updatedAt"}
    return record


@requirement("EXP-TERMINATE-FINAL")
def test_a_terminated_experiment_stays_terminated(experiments: Experiments) -> None:
    ids = ("EXP-TERMINATE-FINAL",)
    record = _created(experiments, "final")
    experiment_id = record["id"]
    first, second = group_ids(record)
    unit = experiments.unit("final")
    experiments.assign_ok(experiment_id, unit, first)
    reply = experiments.terminate(experiment_id)
    status = experiments.status_of(experiment_id) if ok(reply) else None
    if not same_json(status, experiments.p.terminated):
        raise setup_failed(
            "terminate the experiment (EXP-TERMINATE checks that)",
            reply,
            None if status is None else f"the experiment's status reads {status!r}",
        )
    # The "before" of every comparison is read after the terminate: what the terminate itself
    # changed (a rollout closed, members ended) is not a change it was asked to refuse.
    rollout_before = body_of(experiments.rollout(experiment_id))
    member_before = experiments.by_unit(experiments.members(experiment_id, ())).get(unit, {})
    new = experiments.weights([3, 1])
    attempts: dict[str, Callable[[], Reply]] = {
        "rollout change": lambda: experiments.change_rollout(
            experiment_id, percentage=50, weights={first: new[0], second: new[1]}
        ),
        "manual assignment": lambda: experiments.assign(experiment_id, unit, second),
        "unenroll": lambda: experiments.unenroll(experiment_id, unit),
        "reactivate": lambda: experiments.reactivate(experiment_id, unit),
    }
    record_before = _unstamped(experiments.get(experiment_id))
    with IndependentChecks() as independent:
        for what, attempt in attempts.items():
            answer = attempt()
            independent.check(
                400 <= answer.status < 500,
                ids,
                f"{what} on a terminated experiment was not refused",
                "a 4xx",
                answer.describe(),
                answer,
            )
        # States and transitions are not shown (spec 3): a second terminate may be refused or
        # accepted as a no-op. Either way (a 5xx already failed in the client) nothing changes.
        experiments.call("POST", f"/{experiment_id}/terminate", json_body={})
        record_after = _unstamped(experiments.get(experiment_id))
        independent.check(
            same_json(record_after, record_before),
            ids,
            "a terminated experiment changed (after the refused changes and a second terminate)",
            repr(record_before)[:600],
            repr(record_after)[:600],
        )
        status = experiments.status_of(experiment_id)
        independent.check(
            same_json(status, experiments.p.terminated),
            ids,
            "the experiment left terminated",
            f"status {experiments.p.terminated!r}",
            repr(status),
        )
        after = body_of(experiments.rollout(experiment_id))
        independent.check(
            same_json(after, rollout_before),
            ids,
            "the rollout of a terminated experiment changed",
            repr(rollout_before),
            repr(after),
        )
        member = experiments.by_unit(experiments.members(experiment_id, ())).get(unit, {})
        independent.check(
            same_json(member, member_before),
            ids,
            "a member of a terminated experiment changed",
            repr(member_before or "(absent)"),
            repr(member or "(absent)"),
        )


@requirement("EXP-TERMINATE-LEAVES-SNAPSHOT")
def test_a_terminated_experiment_leaves_the_snapshot(experiments: Experiments) -> None:
    ids = ("EXP-TERMINATE-LEAVES-SNAPSHOT",)
    record = _created(experiments, "leaves")
    where, _, snapshot = experiments.summary(record["id"])
    expect(
        where is not None,
        (),
        "a running experiment is not in the status snapshot",
        f"experiment {record['id']} summarised under experiments (EXP-SNAPSHOT-BY-UNIT-TYPE), "
        "so that its leaving can be seen",
        f"experiments: {str(snapshot.get('experiments'))[:300]}",
    )
    reply = experiments.terminate(record["id"])
    if not ok(reply):
        raise setup_failed("terminate the experiment (EXP-TERMINATE checks that)", reply)
    where, _, _ = experiments.summary(record["id"])
    expect(
        where is None,
        ids,
        "a terminated experiment is still in the snapshot",
        "no summary with its id",
        f"still listed under experiments.{where}",
    )


@requirement("EXP-ANALYTICS-CATALOG")
def test_analytics_catalog_names_the_experiments(experiments: Experiments) -> None:
    ids = ("EXP-ANALYTICS-CATALOG",)
    record = _created(experiments, "catalog")
    # The catalog may page (experiment_payload.pagination); its items carry the record's names
    # (experiment_payload.create), read back in the summary's.
    items = experiments.catalog_items(ids)
    entry = next((i for i in items if same_json(i.get("id"), record["id"])), None)
    name_key = experiments.p.create.name
    expect(
        entry is not None and same_json(entry.get("name"), record["name"]),
        ids,
        "the experiment is not in the analytics catalog with its id and name",
        f"an item {{id: {record['id']}, {name_key}: {record['name']!r}}}",
        repr(entry) if entry else f"no item with that id among {len(items)}",
    )
