"""Scenarios: bootstrap with identity headers (spec 1, 2.5, 4.3): per-unit content and metadata.

The expected per-unit document is computed by the suite's own changeset oracle
(``conformance.oracles.experiment_changeset``), never by the target. Experiments whose group
must be known for sure have a single group, so every enrolled unit is in it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from conformance.checks import IndependentChecks, expect
from conformance.drivers.capabilities import other_unit_type
from conformance.drivers.experiments import Experiments, group_ids
from conformance.drivers.sdk import etag_expected, etag_problem
from conformance.drivers.steps import body_of, ok, setup_failed
from conformance.json_types import JsonObject, JsonValue
from conformance.oracles.experiment_changeset import merged
from conformance.oracles.json_equality import same_json, same_number

requirement = pytest.mark.requirement

BASE: JsonObject = {
    "economy": {"startingGold": 100, "shop": "open", "tax": 0.1},
    "flags": {"night": False},
    "title": "base",
    "inventory": {},  # the empty structures: an object is never an array (RFC 8259)
    "quests": [],
}
CHANGESET: list[JsonObject] = [
    {"op": "set", "path": ["economy", "startingGold"], "value": 250},
    {"op": "add", "path": ["economy", "bonus"], "value": {"daily": 5}},
    {"op": "add", "path": ["title"], "value": "add never overwrites"},
    {"op": "delete", "path": ["economy", "tax"]},
    {"op": "set", "path": ["event", "name"], "value": "harvest"},
]
OTHER: list[JsonObject] = [{"op": "set", "path": ["flags", "night"], "value": True}]
EXPECTED = merged(BASE, CHANGESET)
ABSENT = "(absent)"


def _at(document: object, path: JsonValue) -> object:
    for segment in path if isinstance(path, list) else ():
        if not isinstance(document, dict) or segment not in document:
            return ABSENT
        document = document[segment]
    return document


def _seen(document: object) -> list[object]:
    """What the document holds at every path the changeset touches."""
    return [_at(document, operation["path"]) for operation in CHANGESET]


def untouched(document: object) -> bool:
    """No part of CHANGESET shows (other, unrelated members are not judged here)."""
    return _seen(document) == _seen(BASE)


def applied(document: object) -> bool:
    """Every part of CHANGESET shows."""
    return _seen(document) == _seen(EXPECTED)


def _expect_grouped(groups: dict[str, list[JsonValue]], experiment_id: object) -> None:
    """Each unit carrying the gate of a running experiment is named a group on bootstrap."""
    missing = sorted(unit for unit, seen in groups.items() if None in seen)
    expect(
        not missing,
        (),
        "a unit's bootstrap metadata named no group",
        f"a group of experiment {experiment_id} in the bootstrap metadata of every unit "
        "carrying its gate (SDK-BOOTSTRAP-ID-METADATA)",
        f"no group for {missing}",
    )


def _single_group(
    experiments: Experiments,
    label: str,
    changeset: list[JsonObject] = CHANGESET,
    unit_type: str | None = None,
    required: Sequence[str] | None = None,
) -> tuple[JsonObject, JsonObject]:
    """(base configuration, experiment) where every enrolled unit gets ``changeset``."""
    base = experiments.base(BASE, f"{label}-base")
    groups = experiments.groups([changeset])
    record = experiments.create_ok(
        label, base["id"], groups, unit_type=unit_type, required=required
    )
    return base, record


@requirement("SDK-BOOTSTRAP-ID-MERGE")
def test_unit_gets_base_with_its_group_changeset(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-ID-MERGE",)
    base, _ = _single_group(experiments, "merge")
    view = experiments.unit_view(experiments.unit("merge"), ids)
    got = view.document(base["id"])
    expect(
        same_json(got, EXPECTED),
        ids,
        "the unit's document is not the base with its changeset merged",
        repr(EXPECTED),
        repr(got),
        view.reply,
    )


@requirement("SDK-BOOTSTRAP-ID-METADATA")
def test_unit_bootstrap_names_its_experiment_and_group(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-ID-METADATA",)
    _, record = _single_group(experiments, "meta")
    view = experiments.unit_view(experiments.unit("meta"), ids)
    group = view.group_of(record["id"])
    expect(
        same_json(group, group_ids(record)[0]),
        ids,
        "no metadata names the experiment and its group",
        f"an entry of {experiments.b.assignments!r} with experiment {record['id']} "
        f"and group {group_ids(record)[0]}",
        repr(view.metadata()),
        view.reply,
    )


@requirement("SDK-BOOTSTRAP-NO-IDENTITY-BASE")
def test_without_identity_the_base_comes_back(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-NO-IDENTITY-BASE",)
    base, _ = _single_group(experiments, "noid", required=[])  # open to any unit
    view = experiments.base_view()
    got = view.document(base["id"])
    expect(
        same_json(got, BASE),
        ids,
        "a bootstrap without identity merged an experiment's changeset",
        repr(BASE),
        repr(got),
        view.reply,
    )


@requirement("EXP-ASSIGNMENT-DETERMINISTIC")
def test_same_unit_same_group(experiments: Experiments) -> None:
    ids = ("EXP-ASSIGNMENT-DETERMINISTIC",)
    base = experiments.base(BASE)
    record = experiments.create_ok("determ", base["id"], experiments.groups([[], CHANGESET, OTHER]))
    units = [experiments.unit(f"d{n}") for n in range(4)]
    seen: dict[str, list[JsonValue]] = {u: [] for u in units}
    for _ in range(3):
        for unit in units:
            seen[unit].append(experiments.unit_view(unit).group_of(record["id"]))
    _expect_grouped(seen, record["id"])
    moved = {u: g for u, g in seen.items() if len(set(g)) != 1}
    expect(
        not moved,
        ids,
        "a unit got different groups on repeated bootstraps",
        "one group per unit",
        repr(moved),
    )


@requirement("EXP-ASSIGNMENT-PERSISTENT")
def test_bootstrap_assignment_is_recorded(experiments: Experiments) -> None:
    ids = ("EXP-ASSIGNMENT-PERSISTENT",)
    base = experiments.base(BASE)
    record = experiments.create_ok("persist", base["id"], experiments.groups([[], CHANGESET]))
    given = {}
    for n in range(3):
        unit = experiments.unit(f"p{n}")
        given[unit] = experiments.unit_view(unit).group_of(record["id"])
    _expect_grouped({u: [g] for u, g in given.items()}, record["id"])
    with IndependentChecks() as independent:
        for what, entries in (
            ("assignments", experiments.assignments(record["id"], ids)),
            ("members", experiments.members(record["id"], ids)),
        ):
            listed = experiments.by_unit(entries)
            wrong = {
                u: listed.get(u, {}).get(experiments.p.group_id)
                for u, g in given.items()
                if listed.get(u, {}).get(experiments.p.group_id) != g
            }
            independent.check(
                not wrong,
                ids,
                f"the {what} list does not record the bootstrap's assignment",
                repr(given),
                f"listed groups {wrong}",
            )


@requirement("SDK-BOOTSTRAP-ID-ONLY-ACTIVE")
def test_terminated_experiment_no_longer_applies(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-ID-ONLY-ACTIVE",)
    base, record = _single_group(experiments, "ended")
    unit = experiments.unit("ended")
    before = experiments.unit_view(unit)
    expect(
        applied(before.document(base["id"])),
        (),
        "a unit of a running single-group experiment was not given its changeset",
        "the group's changeset merged into the unit's document before termination "
        "(SDK-BOOTSTRAP-ID-MERGE), so that its end can be seen",
        repr(before.document(base["id"])),
        before.reply,
    )
    ended = experiments.terminate(record["id"])
    if not ok(ended):
        raise setup_failed("terminate the experiment (EXP-TERMINATE checks that)", ended)
    with IndependentChecks() as independent:
        for who in (unit, experiments.unit("late")):
            view = experiments.unit_view(who, ids)
            independent.check(
                untouched(view.document(base["id"])),
                ids,
                "a terminated experiment still changes the unit's content",
                repr(BASE),
                repr(view.document(base["id"])),
                view.reply,
            )
            independent.check(
                view.assignment(record["id"]) is None,
                ids,
                "a terminated experiment is still in the unit's metadata",
                "no entry for it",
                repr(view.assignment(record["id"])),
                view.reply,
            )


@requirement("SDK-BOOTSTRAP-ID-UNIT-TYPE")
def test_unit_meets_only_experiments_of_its_type(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-ID-UNIT-TYPE",)
    first = experiments.profile.experiments.unit_types[0]
    second = other_unit_type(experiments.profile, first)
    with IndependentChecks() as independent:
        for mine, foreign in ((first, second), (second, first)):
            base, record = _single_group(experiments, f"utype-{foreign}", unit_type=foreign)
            view = experiments.unit_view(experiments.unit("utype"), ids, unit_type=mine)
            independent.check(
                untouched(view.document(base["id"])) and view.assignment(record["id"]) is None,
                ids,
                f"a {mine} unit met a {foreign} experiment",
                "the base content and no metadata entry for it",
                f"document {view.document(base['id'])!r}, entry {view.assignment(record['id'])!r}",
                view.reply,
            )


@requirement("SDK-BOOTSTRAP-ID-UNTOUCHED-CONFIGS")
def test_configurations_without_experiment_stay_base(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-ID-UNTOUCHED-CONFIGS",)
    _single_group(experiments, "touched")
    bystander = {"bystander": {"startingGold": 100}, "title": "base"}
    other = experiments.base(bystander, "bystander")
    view = experiments.unit_view(experiments.unit("touched"), ids)
    got = view.document(other["id"])
    expect(
        same_json(got, bystander),
        ids,
        "a configuration without experiment changed for a unit",
        repr(bystander),
        repr(got),
        view.reply,
    )


@requirement("SDK-BOOTSTRAP-ID-ETAG-EQUALS-HASH")
def test_unit_bootstrap_has_its_own_hash_and_etag(experiments: Experiments) -> None:
    ids = ("SDK-BOOTSTRAP-ID-ETAG-EQUALS-HASH",)
    _single_group(experiments, "etag")
    view = experiments.unit_view(experiments.unit("etag"), ids)
    plain = experiments.base_view()
    with IndependentChecks() as independent:
        received = etag_problem(view.reply.headers, view.hash)
        independent.check(
            isinstance(view.hash, str) and bool(view.hash) and received is None,
            ids,
            "the per-unit ETag is not an entity-tag carrying the per-unit hash",
            etag_expected(view.hash),
            received or f"hash {view.hash!r}",
            view.reply,
        )
        independent.check(
            view.hash != plain.hash,
            ids,
            "the per-unit hash equals the base hash although the content differs",
            "a hash over the per-unit payload",
            f"the base bootstrap hash {plain.hash!r}",
            view.reply,
        )


@requirement("EXP-REQUIRED-PROPERTIES-GATE")
def test_required_properties_gate_enrolment(experiments: Experiments) -> None:
    ids = ("EXP-REQUIRED-PROPERTIES-GATE",)
    level = f"{experiments.gate}-level"
    base, record = _single_group(experiments, "gate", required=[experiments.gate, level])
    unit = experiments.unit("gate")
    lacking = experiments.unit_view(unit, ids)
    with IndependentChecks() as independent:
        independent.check(
            untouched(lacking.document(base["id"])) and lacking.assignment(record["id"]) is None,
            ids,
            "a unit lacking a required property was enrolled",
            "base content and no metadata entry",
            repr(lacking.document(base["id"])),
            lacking.reply,
        )
        full = experiments.unit_view(unit, ids, context={level: 3})
        independent.check(
            applied(full.document(base["id"])) or full.assignment(record["id"]) is not None,
            ids,
            "a unit with every required property was not enrolled",
            repr(EXPECTED),
            repr(full.document(base["id"])),
            full.reply,
        )


@requirement("EXP-MANUAL-ASSIGNMENT-CONTENT")
def test_manual_assignment_decides_the_content(experiments: Experiments) -> None:
    ids = ("EXP-MANUAL-ASSIGNMENT-CONTENT",)
    base = experiments.base(BASE)
    changesets = [CHANGESET, OTHER]
    record = experiments.create_ok("mcontent", base["id"], experiments.groups(changesets))
    groups = group_ids(record)
    plan = {experiments.unit(f"mc{n}"): n % 2 for n in range(6)}
    for unit, index in plan.items():
        experiments.assign_ok(record["id"], unit, groups[index])
    with IndependentChecks() as independent:
        for unit, index in plan.items():
            view = experiments.unit_view(unit, ids)
            wanted = merged(BASE, changesets[index])
            independent.check(
                same_json(view.document(base["id"]), wanted),
                ids,
                f"a unit assigned to group {groups[index]} did not get its content",
                repr(wanted),
                repr(view.document(base["id"])),
                view.reply,
            )


@requirement("EXP-UNENROLL-BASE-CONTENT")
def test_unenrolled_unit_gets_the_base(experiments: Experiments) -> None:
    ids = ("EXP-UNENROLL-BASE-CONTENT",)
    base, record = _single_group(experiments, "unenrolled")
    unit = experiments.unit("out")
    experiments.assign_ok(record["id"], unit, group_ids(record)[0])
    before = experiments.unit_view(unit)
    expect(
        applied(before.document(base["id"])),
        (),
        "a manually enrolled unit did not get its group's content",
        "the group's changeset merged into the unit's document (EXP-MANUAL-ASSIGNMENT-CONTENT), "
        "so that unenrolling can be seen",
        repr(before.document(base["id"])),
        before.reply,
    )
    dropped = experiments.unenroll(record["id"], unit)
    if not ok(dropped):
        raise setup_failed("unenroll the unit (EXP-UNENROLL checks that)", dropped)
    view = experiments.unit_view(unit, ids)
    expect(
        untouched(view.document(base["id"])),
        ids,
        "an unenrolled unit still gets its group's changeset",
        repr(BASE),
        repr(view.document(base["id"])),
        view.reply,
    )


@requirement("EXP-ROLLOUT-LIMITS-ENROLMENT")
def test_zero_rollout_enrols_nobody(experiments: Experiments) -> None:
    ids = ("EXP-ROLLOUT-LIMITS-ENROLMENT",)
    base, record = _single_group(experiments, "zero")
    changed = experiments.change_rollout(record["id"], percentage=0)
    shown = body_of(experiments.rollout(record["id"]))
    if (
        not ok(changed)
        or not isinstance(shown, dict)
        or not same_number(shown.get(experiments.p.percentage), 0)
    ):
        raise setup_failed(
            "turn the rollout down to 0 (EXP-ROLLOUT-CHANGE checks that)",
            changed,
            f"the rollout reads back {str(shown)[:200]}",
        )
    enrolled = []
    for n in range(8):
        unit = experiments.unit(f"z{n}")
        view = experiments.unit_view(unit, ids)
        if not untouched(view.document(base["id"])) or view.assignment(record["id"]) is not None:
            enrolled.append(unit)
    expect(
        not enrolled,
        ids,
        "units were enrolled with the rollout at 0",
        "base content and no metadata for every new unit",
        f"enrolled: {enrolled}",
    )


@requirement("EXP-CONTEXT-PROPERTIES-RECORDED")
def test_context_properties_sent_are_recorded(experiments: Experiments) -> None:
    ids = ("EXP-CONTEXT-PROPERTIES-RECORDED",)
    name = f"{experiments.gate}-seen"
    experiments.unit_view(experiments.unit("ctx"), context={name: "x"})
    # The list may page (experiment_payload.pagination): every page is read.
    listed = experiments.property_items(ids)
    names = {str(i.get(experiments.p.property_name)) for i in listed}
    expect(
        name in names,
        ids,
        "a property sent on bootstrap is not listed",
        f"{name!r} among the names",
        f"{len(names)} names, not it",
    )
