"""The experiment create body and record in the target's own names (``experiment_payload.create``).

Scenarios build create bodies and read records in the experiment summary's names (spec 2.5:
``name``, ``unitType``, ``groups[].label`` ...), the one vocabulary their checks speak. Spec 2.5's
gaps and 4.2 leave the create body and the record "not shown": the target declares its names in
``experiment_payload.create`` (defaults: the summary's names, the convention). ``outbound`` turns
a body into the target's names just before it is sent; ``inbound`` turns a record (the create
answer, GET /{experimentId}, list and catalog items) back. With every key at its default both
are the identity.
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.json_types import JsonValue
from conformance.profile.experiments import ExperimentCreate

# experiment_payload.create key -> the summary's name (spec 2.5), top level and in a group
TOP: dict[str, str] = {
    "name": "name",
    "unit_type": "unitType",
    "assignment_mode": "assignmentMode",
    "base_configuration_id": "baseConfigurationId",
    "required_properties": "requiredProperties",
    "groups": "groups",
}
GROUP: dict[str, str] = {"group_label": "label", "group_weight": "weight"}


def _table(names: ExperimentCreate, keys: Mapping[str, str]) -> dict[str, str]:
    """Summary name -> the target's name, for the keys of ``keys``."""
    return {summary: str(getattr(names, key)) for key, summary in keys.items()}


def renamed_keys(names: ExperimentCreate) -> list[str]:
    """The ``experiment_payload.create`` keys whose value is not the summary's name."""
    return [
        f"experiment_payload.create.{key}"
        for key, summary in {**TOP, **GROUP}.items()
        if getattr(names, key) != summary
    ]


def _rename(data: Mapping[str, object], table: Mapping[str, str]) -> dict[str, object]:
    """Fields renamed by ``table``; a field already bearing a target's name that ``table`` does
    not produce from the source is kept as it is (a scenario's extra field)."""
    return {table.get(k, k): v for k, v in data.items()}


def _groups(value: object, table: Mapping[str, str]) -> object:
    if not isinstance(value, list):
        return value
    return [_rename(g, table) if isinstance(g, dict) else g for g in value]


def outbound(body: object, names: ExperimentCreate) -> object:
    """A create body in summary names -> the target's names (anything else as it is)."""
    if not isinstance(body, dict):
        return body
    top, group = _table(names, TOP), _table(names, GROUP)
    out = _rename(body, top)
    if top["groups"] in out:
        out[top["groups"]] = _groups(out[top["groups"]], group)
    return out


def _back(data: Mapping[str, JsonValue], table: Mapping[str, str]) -> dict[str, JsonValue]:
    """Fields in the target's names (``table``: summary -> target) back in summary names; a
    field under a summary name the target spells otherwise is dropped (it is not that field)."""
    back = {target: summary for summary, target in table.items()}
    away = {summary for summary, target in table.items() if summary != target}
    return {back.get(k, k): v for k, v in data.items() if k in back or k not in away}


def inbound(record: JsonValue, names: ExperimentCreate) -> JsonValue:
    """A record in the target's names -> summary names (anything else as it is)."""
    if not isinstance(record, dict):
        return record
    out = _back(record, _table(names, TOP))
    groups, group = out.get("groups"), _table(names, GROUP)
    if isinstance(groups, list):
        out["groups"] = [_back(g, group) if isinstance(g, dict) else g for g in groups]
    return out
