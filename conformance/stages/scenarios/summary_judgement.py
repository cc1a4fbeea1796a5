"""The judgement of a running experiment's snapshot summary against the body that created it."""

from __future__ import annotations

from conformance.checks import IndependentChecks, expect
from conformance.drivers.experiments import Experiments
from conformance.json_types import JsonObject, objects_in
from conformance.oracles import experiment_shapes
from conformance.oracles.experiment_shapes import group_problems, summary_problems
from conformance.oracles.json_equality import same_json


def judge_summary(
    experiments: Experiments, base_id: object, unit_type: str, change: list[JsonObject]
) -> None:
    """Create an experiment of three groups (the second making ``change``) under ``unit_type``
    and judge its summary in the status snapshot against the body that created it."""
    groups = experiments.groups([[], change, []], [5, 3, 2])
    required = [experiments.gate, f"{experiments.gate}-level"]
    body = experiments.body("summary", base_id, groups, unit_type=unit_type, required=required)
    body["name"] = f"{body['name']} Launch Test"
    record = experiments.create_body_ok(body)
    _, summary, snapshot = experiments.summary(record["id"])
    expect(
        summary is not None,
        (),
        "a running experiment is not in the status snapshot",
        f"experiment {record['id']} summarised under experiments (EXP-SNAPSHOT-BY-UNIT-TYPE)",
        f"experiments: {str(snapshot.get('experiments'))[:300]}",
    )
    assert summary is not None
    with IndependentChecks() as independent:
        found = summary_problems(summary)
        independent.check(
            not found,
            ("EXP-SNAPSHOT-SUMMARY-FIELDS",),
            "summary fields missing or mistyped",
            "every field of spec 2.5 with its type",
            "; ".join(found[:6]),
        )
        found = group_problems(summary, weighted=True)
        independent.check(
            not found,
            ("EXP-SNAPSHOT-GROUP-FIELDS",),
            "group fields missing or mistyped",
            "id, label, weight, ordinal numbers/strings",
            "; ".join(found[:6]),
        )
        conv = experiment_shapes.group_convention_problems(summary)
        why = ("groups break a convention", "one group or more, distinct ordinals", "; ".join(conv))
        independent.check(not conv, ("EXP-SNAPSHOT-GROUP-CONVENTIONS",), *why)
        match = ("EXP-SNAPSHOT-MATCHES-EXPERIMENT",)
        for name in ("name", "unitType", "assignmentMode", "baseConfigurationId"):
            independent.check(
                same_json(summary.get(name), body[name]),
                match,
                f"summary {name} differs",
                repr(body[name]),
                repr(summary.get(name, "(absent)")),
            )
        props = summary.get("requiredProperties")
        independent.check(
            isinstance(props, list) and sorted(map(str, props)) == sorted(required),
            match,
            "summary requiredProperties differ",
            repr(sorted(required)),
            repr(props),
        )
        sent = {str(g["label"]): g["weight"] for g in groups}
        seen = {str(g.get("label")): g.get("weight") for g in objects_in(summary.get("groups"))}
        independent.check(
            experiments.same_weights(seen, sent),
            match,
            "summary groups differ (label, weight)",
            repr(sorted(sent.items())),
            repr(sorted(seen.items())),
        )
        top = snapshot.get("requiredProperties")
        listed = set(top) if isinstance(top, list) else set()
        independent.check(
            set(required) <= listed,
            ("EXP-SNAPSHOT-REQUIRED-PROPERTIES-UNION",),
            "the experiment's required properties are missing at the top level",
            f"requiredProperties including {sorted(required)}",
            repr(top),
        )
