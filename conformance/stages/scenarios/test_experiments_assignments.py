"""Scenarios: assignments, members, counts and rollout of an experiment (spec 3, 4.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict, TypeGuard

import pytest

from conformance.checks import IndependentChecks, conventions, expect, json_object
from conformance.drivers.experiments import Experiments, group_ids
from conformance.drivers.steps import body_of, ok, setup_failed
from conformance.json_types import JsonObject, JsonValue, objects_in
from conformance.oracles.json_equality import same_json, same_number
from conformance.traffic.transcript import Reply

requirement = pytest.mark.requirement

BASE: JsonObject = {"economy": {"startingGold": 100}}
MORE_GOLD: list[JsonObject] = [{"op": "set", "path": ["economy", "startingGold"], "value": 200}]


def _experiment(experiments: Experiments, label: str) -> tuple[int, list[JsonValue]]:
    base = experiments.base(BASE)
    record = experiments.create_ok(label, base["id"], experiments.groups([[], MORE_GOLD]))
    return record["id"], group_ids(record)


def _assigned(
    experiments: Experiments, label: str, plan: list[int]
) -> tuple[int, list[JsonValue], dict[str, JsonValue]]:
    """An experiment with manually assigned units: unit -> group id, by index into ``plan``."""
    experiment_id, groups = _experiment(experiments, label)
    units = {experiments.unit(f"{label}{n}"): groups[index] for n, index in enumerate(plan)}
    for unit, group in units.items():
        experiments.assign_ok(experiment_id, unit, group)
    return experiment_id, groups, units


def _placed(
    entries: Mapping[str, Mapping[str, object]],
    units: Mapping[str, JsonValue],
    experiments: Experiments,
) -> list[str]:
    """Units that are not listed in their expected group."""
    wrong = []
    for unit, group in units.items():
        seen = entries.get(unit, {}).get(experiments.p.group_id, "nowhere")
        if seen != group:
            wrong.append(f"{unit} (expected group {group}, listed {seen})")
    return wrong


@requirement("EXP-MANUAL-ASSIGNMENT")
def test_manual_assignment_places_the_unit(experiments: Experiments) -> None:
    ids = ("EXP-MANUAL-ASSIGNMENT",)
    experiment_id, groups = _experiment(experiments, "manual")
    units = {experiments.unit("m0"): groups[1], experiments.unit("m1"): groups[0]}
    for unit, group in units.items():
        reply = experiments.assign(experiment_id, unit, group)
        expect(ok(reply), ids, "manual assignment was refused", "HTTP 2xx", reply.describe(), reply)
    listings = {
        "assignments": experiments.by_unit(experiments.assignments(experiment_id, ())),
        "members": experiments.by_unit(experiments.members(experiment_id, ())),
    }
    misplaced = []
    omitted = []
    for what, entries in listings.items():
        for unit, group in units.items():
            if unit not in entries:
                omitted.append(f"{what} lacks {unit}")
            elif entries[unit].get(experiments.p.group_id) != group:
                seen = entries[unit].get(experiments.p.group_id)
                misplaced.append(f"{what} lists {unit} in group {seen}, not {group}")
    # A list that omits everyone is that list's own fault (EXP-ASSIGNMENTS-LIST, EXP-MEMBERS);
    # the assignment is not kept when neither list shows it, or one shows another group.
    nowhere = [u for u in units if all(u not in entries for entries in listings.values())]
    expect(
        not misplaced and not nowhere,
        ids,
        "the manual assignment is not listed by the assignments and members endpoints",
        "each unit in the group it was given",
        "; ".join(misplaced + omitted),
    )


@requirement("EXP-ASSIGNMENTS-LIST")
def test_assignments_list_shows_each_unit_with_its_group(experiments: Experiments) -> None:
    ids = ("EXP-ASSIGNMENTS-LIST",)
    experiment_id, _, units = _assigned(experiments, "alist", [0, 1, 1])
    wrong = _placed(
        experiments.by_unit(experiments.assignments(experiment_id, ids)), units, experiments
    )
    expect(
        not wrong,
        ids,
        "assigned units are missing from the assignments list",
        "each unit with its group",
        "; ".join(wrong),
    )


@requirement("EXP-MEMBERS")
def test_members_list_shows_group_and_activity(experiments: Experiments) -> None:
    ids = ("EXP-MEMBERS",)
    experiment_id, _, units = _assigned(experiments, "mlist", [1, 0, 1])
    members = experiments.by_unit(experiments.members(experiment_id, ids))
    wrong = _placed(members, units, experiments)
    inactive = [u for u in units if u in members and not experiments.is_active(members[u])]
    expect(
        not wrong and not inactive,
        ids,
        "members are not listed active in their group",
        f"each unit active ({experiments.p.status}: {experiments.p.member_active!r}) in its group",
        "; ".join(wrong + [f"{u} not active" for u in inactive]),
    )


@requirement("EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP")
def test_manual_assignment_to_a_foreign_group_is_refused(experiments: Experiments) -> None:
    ids = ("EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP",)
    experiment_id, _ = _experiment(experiments, "own")
    _, foreign_groups = _experiment(experiments, "foreign")
    unit = experiments.unit("stray")
    reply = experiments.assign(experiment_id, unit, foreign_groups[0])
    expect(
        400 <= reply.status < 500,
        ids,
        "a manual assignment to another experiment's group was accepted",
        "a 4xx",
        reply.describe(),
        reply,
    )
    listed = experiments.by_unit(experiments.assignments(experiment_id, ()))
    expect(
        unit not in listed,
        ids,
        "the refused assignment was stored anyway",
        f"no assignment for {unit}",
        repr(listed.get(unit)),
    )


def _require_listed_active(experiments: Experiments, experiment_id: int, unit: str) -> None:
    """The member list must show the unit active first, or a change there cannot be seen."""
    member = experiments.by_unit(experiments.members(experiment_id, ())).get(unit)
    expect(
        member is not None and experiments.is_active(member),
        (),
        "the member list does not show a manually assigned unit active",
        f"unit {unit} listed with {experiments.p.status!r} {experiments.p.member_active!r} "
        "(EXP-MEMBERS), so that a change to it can be seen",
        repr(member or "(absent)"),
    )


@requirement("EXP-UNENROLL")
def test_unenroll_makes_the_member_inactive(experiments: Experiments) -> None:
    ids = ("EXP-UNENROLL",)
    experiment_id, _, units = _assigned(experiments, "unenroll", [1])
    unit = next(iter(units))
    _require_listed_active(experiments, experiment_id, unit)
    reply = experiments.unenroll(experiment_id, unit)
    expect(ok(reply), ids, "unenroll was refused", "HTTP 2xx", reply.describe(), reply)
    p = experiments.p
    member = experiments.by_unit(experiments.members(experiment_id, ids)).get(unit)
    expect(
        member is not None and member.get(p.status) == p.member_unenrolled,
        ids,
        "the unenrolled unit is not listed as unenrolled",
        f"a member entry with {p.status!r} {p.member_unenrolled!r} "
        "(profile experiment_payload.status / member_unenrolled)",
        repr(member or "(no member entry)"),
    )
    if p.status_param is None:
        return  # experiment_payload.status_param: null, the members list takes no status filter
    with IndependentChecks() as independent:
        for value, listed in ((p.member_unenrolled, True), (p.member_active, False)):
            found = experiments.by_unit(experiments.members(experiment_id, ids, value))
            independent.check(
                (unit in found) == listed,
                ids,
                f"the members filtered by {p.status_param}={value!r} do not show the unit right",
                f"the unit {'listed' if listed else 'not listed'} "
                "(profile experiment_payload.status_param)",
                f"{len(found)} members listed, the unit {'among' if unit in found else 'not among'}"
                " them",
            )


@requirement("EXP-REACTIVATE")
def test_reactivate_restores_the_member(experiments: Experiments) -> None:
    ids = ("EXP-REACTIVATE",)
    experiment_id, _, units = _assigned(experiments, "react", [1])
    unit, group = next(iter(units.items()))
    _require_listed_active(experiments, experiment_id, unit)
    dropped = experiments.unenroll(experiment_id, unit)
    if not ok(dropped):
        raise setup_failed("unenroll the unit (EXP-UNENROLL checks that)", dropped)
    reply = experiments.reactivate(experiment_id, unit)
    expect(ok(reply), ids, "reactivate was refused", "HTTP 2xx", reply.describe(), reply)
    member = experiments.by_unit(experiments.members(experiment_id, ids)).get(unit)
    expect(
        member is not None
        and experiments.is_active(member)
        and member.get(experiments.p.group_id) == group,
        ids,
        "the reactivated unit is not active again in its group",
        f"active in group {group}",
        repr(member or "(no member entry)"),
    )


@requirement(
    "EXP-GROUP-COUNTS",
    "EXP-ASSIGNMENT-COUNTS",
    "EXP-COUNTS-AGREE-MEMBERS",
    "EXP-COUNTS-AGREE-TOTALS",
)
def test_counts_add_up(experiments: Experiments) -> None:
    p = experiments.p
    experiment_id, groups, units = _assigned(experiments, "counts", [0, 0, 0, 1])
    dropped = next(u for u, g in units.items() if same_json(g, groups[0]))
    unenrolled = experiments.unenroll(experiment_id, dropped)
    if not ok(unenrolled):
        raise setup_failed("unenroll a unit (EXP-UNENROLL checks that)", unenrolled)
    active = {
        g: sum(1 for u, h in units.items() if same_json(h, g) and not same_json(u, dropped))
        for g in groups
    }
    per = experiments.group_counts(experiment_id)
    with IndependentChecks() as independent:
        per_body = body_of(per) if ok(per) else None
        rows = per_body.get(p.count_groups) if isinstance(per_body, dict) else None
        _count_name_miss(experiments, rows, per)
        group_active = experiments.group_count_names()[0]
        counted = {r.get(p.group_id): r.get(group_active) for r in objects_in(rows)}
        independent.check(
            counted == active,
            ("EXP-GROUP-COUNTS",),
            "per-group counts are wrong",
            f"active per group {active}",
            per.describe(),
            per,
        )
        members = experiments.members(experiment_id, ())
        listed = {
            g: sum(
                1 for m in members if same_json(m.get(p.group_id), g) and experiments.is_active(m)
            )
            for g in groups
        }
        if rows is not None and listed == active:  # a wrong member list is EXP-MEMBERS' fault
            independent.check(
                listed == counted,
                ("EXP-COUNTS-AGREE-MEMBERS",),
                "per-group counts disagree with the member list",
                f"active members per group {listed}",
                f"counts {counted}",
            )
        # The project-wide list may page (experiment_payload.pagination): read every page.
        items = experiments.count_items(("EXP-ASSIGNMENT-COUNTS",))
        entry = next(
            (i for i in items if same_json(i.get(p.experiment_id), experiment_id)),
            None,
        )
        enrolled = sum(active.values())
        independent.check(
            entry is not None and entry.get(p.count_active) == enrolled,
            ("EXP-ASSIGNMENT-COUNTS",),
            "the project-wide count of the experiment is wrong",
            f"an item for experiment {experiment_id} with {p.count_active} {enrolled}",
            repr(entry) if entry else f"no item for experiment {experiment_id} in {len(items)}",
        )
        if entry is not None and isinstance(per_body, dict):
            # each endpoint under its own names (experiment_payload.count_* and group_count_*)
            project_wide = (p.count_active, p.count_unenrolled, p.count_total)
            pairs = [
                (k, g)
                for k, g in zip(project_wide, experiments.group_count_names(), strict=True)
                if g in per_body
            ]
            independent.check(
                bool(pairs) and all(same_json(entry.get(k), per_body[g]) for k, g in pairs),
                ("EXP-COUNTS-AGREE-TOTALS",),
                "project-wide counts disagree with the experiment's own",
                repr({g: per_body.get(g) for _, g in pairs}),
                repr(entry),
            )


def _count_name_miss(experiments: Experiments, rows: object, reply: Reply) -> None:
    """Per-group rows without the active count's field, its name undeclared: the name is not
    shown (spec 4.2), so the counts are not judged at the interface level (a difference)."""
    key, name = "experiment_payload.group_count_active", experiments.group_count_names()[0]
    declared = experiments.profile.declares(key) or (
        experiments.p.group_count_active is None
        and experiments.profile.declares("experiment_payload.count_active")
    )
    found = objects_in(rows)
    if not found or any(name in r for r in found) or declared:
        return
    ids = ("EXP-GROUP-COUNTS", "EXP-COUNTS-AGREE-MEMBERS", "EXP-COUNTS-AGREE-TOTALS")
    fields = sorted({k for r in found for k in r})
    raise conventions.miss(ids, key, name, f"rows with fields {fields}", "per-group counts", reply)


# ------------------------------------------------------------------ rollout


FULL_ROLLOUT = 100


class RolloutChange(TypedDict, total=False):
    """A change of rollout as ``Experiments.change_rollout`` takes it."""

    percentage: object
    weights: Mapping[object, object] | None


def _positive(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _rollout_weights(body: object, experiments: Experiments) -> dict[JsonValue, JsonValue]:
    rows = body.get(experiments.p.rollout_groups) if isinstance(body, dict) else None
    return {r.get("id"): r.get("weight") for r in objects_in(rows)}


@requirement("EXP-ROLLOUT-GET")
def test_rollout_can_be_read(experiments: Experiments) -> None:
    ids = ("EXP-ROLLOUT-GET",)
    base = experiments.base(BASE)
    groups = experiments.groups([[], MORE_GOLD], [3, 1])
    record = experiments.create_ok("rollout", base["id"], groups)
    reply = experiments.rollout(record["id"])
    expect(ok(reply), ids, "get rollout failed", "HTTP 200", reply.describe(), reply)
    body = json_object(reply, ids, "a rollout object")
    wanted = dict(zip(group_ids(record), [g["weight"] for g in groups], strict=True))
    percentage = experiments.p.percentage
    expect(
        experiments.same_weights(_rollout_weights(body, experiments), wanted)
        and same_json(body.get(percentage), FULL_ROLLOUT),
        ids,
        "the rollout does not describe the split",
        f"{percentage} {FULL_ROLLOUT} (a new experiment takes all traffic) and group weights "
        f"{wanted}",
        reply.describe(),
        reply,
    )


@requirement("EXP-ROLLOUT-CHANGE")
def test_rollout_change_is_kept(experiments: Experiments) -> None:
    ids = ("EXP-ROLLOUT-CHANGE",)
    experiment_id, groups = _experiment(experiments, "change")
    new = experiments.weights([3, 1])
    wanted = dict(zip(groups, new, strict=True))
    # The new percentage as the rollout read shows it: scaled like the initial full rollout
    # (a wrong scale in that read is EXP-ROLLOUT-GET's business, not this one's).
    initial = body_of(experiments.rollout(experiment_id))
    shown_full = initial.get(experiments.p.percentage) if isinstance(initial, dict) else None
    scale = float(shown_full) / FULL_ROLLOUT if _positive(shown_full) else 1.0
    for change in ({"percentage": 50}, {"weights": wanted}):  # each kind of change alone
        reply = experiments.change_rollout(experiment_id, **change)
        expect(ok(reply), ids, "rollout change was refused", "HTTP 2xx", reply.describe(), reply)
    after = experiments.rollout(experiment_id)
    body = body_of(after)
    with IndependentChecks() as independent:
        independent.check(
            experiments.same_weights(_rollout_weights(body, experiments), wanted),
            ids,
            "the rollout read does not show the new weights",
            repr(wanted),
            after.describe(),
            after,
        )
        independent.check(
            isinstance(body, dict) and same_number(body.get(experiments.p.percentage), 50 * scale),
            ids,
            "the rollout read does not show the new percentage",
            f"{experiments.p.percentage}: 50",
            after.describe(),
            after,
        )
        _, summary, _ = experiments.summary(experiment_id)
        shown = {
            g.get("id"): g.get("weight")
            for g in objects_in(None if summary is None else summary.get("groups"))
        }
        independent.check(
            experiments.same_weights(shown, wanted),
            ids,
            "the snapshot summary does not show the new weights",
            repr(wanted),
            repr(shown or summary),
        )


@requirement("EXP-ROLLOUT-CHANGE-INVALID")
def test_invalid_rollout_change_is_refused(experiments: Experiments) -> None:
    ids = ("EXP-ROLLOUT-CHANGE-INVALID",)
    experiment_id, groups = _experiment(experiments, "badroll")
    before = body_of(experiments.rollout(experiment_id))
    total = experiments.profile.experiments.weight_total
    cases: dict[str, RolloutChange] = {
        "negative weight": {"weights": {groups[0]: (total or 100) + 1, groups[1]: -1}},
        "percentage above 100": {"percentage": 101},
        "negative percentage": {"percentage": -1},
    }
    if total is not None:  # null: no fixed total, so no sum to miss
        cases["weights below the total"] = {"weights": {groups[0]: 1, groups[1]: 1}}
        cases["weights above the total"] = {"weights": {groups[0]: total, groups[1]: 1}}
    with IndependentChecks() as independent:
        for what, change in cases.items():
            reply = experiments.change_rollout(experiment_id, **change)
            independent.check(
                400 <= reply.status < 500,
                ids,
                f"a rollout change with {what} was accepted",
                "a 4xx",
                reply.describe(),
                reply,
            )
        after = body_of(experiments.rollout(experiment_id))
        independent.check(
            same_json(after, before),
            ids,
            "a refused rollout change changed the rollout",
            repr(before),
            repr(after),
        )
