"""The dialect's payload shapes: each reference payload renamed (and re-valued) for the dialect,
and each dialect request body renamed back. Pure functions over parsed JSON."""

from __future__ import annotations

from typing import Any

from dialect import timestamps
from dialect.changesets import to_json_patch
from dialect.choices import (
    BOOTSTRAP_KEYS,
    EXPERIMENT_STATUS_VALUES,
    MEMBER_STATUS_VALUES,
    dialect_name,
    reference_name,
)
from dialect.hashes import HashTable
from dialect.paths import PathError, to_dotted

Table = dict[str, str]


def table(*keys: str) -> Table:
    """Reference name -> dialect name for these experiment_payload keys."""
    return {reference_name(k): dialect_name(k) for k in keys}


def renamed(data: Any, names: Table) -> Any:
    """An object with its top-level fields renamed (others kept); non-objects unchanged."""
    if not isinstance(data, dict):
        return data
    return {names.get(k, k): v for k, v in data.items()}


def inbound(data: Any, names: Table) -> Any:
    """A dialect request object back in reference names: the reference names themselves mean
    nothing to the dialect and are dropped, then the dialect names are renamed."""
    if not isinstance(data, dict):
        return data
    back = {v: k for k, v in names.items()}
    kept = {k: v for k, v in data.items() if k not in names or k in back}
    return {back.get(k, k): v for k, v in kept.items()}


def revalued(data: Any, field: str, values: Table) -> Any:
    if isinstance(data, dict) and isinstance(data.get(field), str):
        return {**data, field: values.get(data[field], data[field])}
    return data


def listed(data: Any, item: Any) -> Any:
    """A list answer: ``items`` renamed, each item translated by ``item``."""
    if not isinstance(data, dict):
        return data
    out = renamed(data, table("items"))
    items = out.get(dialect_name("items"))
    if isinstance(items, list):
        out[dialect_name("items")] = [item(i) for i in items]
    return out


# ---------------------------------------------------------------- configuration records


def configuration_record(data: Any, hashes: HashTable) -> Any:
    if not isinstance(data, dict):
        return data
    out = timestamps.record_to_dialect(data)
    if isinstance(out.get("contentHash"), str):
        out["contentHash"] = hashes.issue(out["contentHash"])
    keys = out.get("privateKeys")
    if isinstance(keys, list):
        out["privateKeys"] = [_dotted_or_same(k) for k in keys]
    return out


def _dotted_or_same(pointer: Any) -> Any:
    try:
        return to_dotted(pointer) if isinstance(pointer, str) else pointer
    except PathError:
        return pointer


# ---------------------------------------------------------------- experiments


def experiment_record(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    out = timestamps.record_to_dialect(data)
    out = revalued(out, "status", EXPERIMENT_STATUS_VALUES)
    out = renamed(out, table("status"))
    groups = out.get("groups")
    if isinstance(groups, list):
        out["groups"] = [_group(g) for g in groups]
    if isinstance(out.get("rollout"), dict):
        out["rollout"] = renamed(out["rollout"], table("percentage"))
    return out


def _group(group: Any) -> Any:
    if not isinstance(group, dict) or "changeset" not in group:
        return group
    out = renamed(group, table("changeset"))
    out[dialect_name("changeset")] = to_json_patch(group["changeset"])
    return out


def catalog_item(data: Any) -> Any:
    return renamed(revalued(data, "status", EXPERIMENT_STATUS_VALUES), table("status"))


def assignment_record(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    out = revalued(timestamps.record_to_dialect(data), "status", MEMBER_STATUS_VALUES)
    return renamed(out, table("unit_id", "experiment_id", "group_id", "status"))


def counts_item(data: Any) -> Any:
    names = table("experiment_id", "count_active", "count_unenrolled", "count_total")
    return renamed(data, names)


def experiment_counts(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    names = table(
        "experiment_id", "count_active", "count_unenrolled", "count_total", "count_groups"
    )
    out = renamed(data, names)
    groups = out.get(dialect_name("count_groups"))
    if isinstance(groups, list):
        per_group = table("group_id", "count_active", "count_unenrolled", "count_total")
        out[dialect_name("count_groups")] = [renamed(g, per_group) for g in groups]
    return out


def context_property(data: Any) -> Any:
    return renamed(timestamps.record_to_dialect(data), table("property_name"))


def rollout(data: Any) -> Any:
    return renamed(data, table("experiment_id", "percentage", "rollout_groups"))


# ---------------------------------------------------------------- SDK snapshots


def snapshot(data: Any, hashes: HashTable) -> Any:
    """A status or bootstrap body: hashes issued, summaries' times, bootstrap names."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if isinstance(out.get("hash"), str):
        out["hash"] = hashes.issue(out["hash"])
    entries = out.get("configurations")
    if isinstance(entries, list):
        out["configurations"] = [_entry(e, hashes) for e in entries]
    experiments = out.get("experiments")
    if isinstance(experiments, dict):
        out["experiments"] = {
            kind: [_summary(s) for s in summaries] if isinstance(summaries, list) else summaries
            for kind, summaries in experiments.items()
        }
    ref_assignments, assignments = BOOTSTRAP_KEYS["assignments"]
    if isinstance(out.get(ref_assignments), list):
        out[assignments] = [assignment_record(a) for a in out.pop(ref_assignments)]
    return out


def _entry(entry: Any, hashes: HashTable) -> Any:
    if not isinstance(entry, dict):
        return entry
    out = dict(entry)
    if isinstance(out.get("hash"), str):
        out["hash"] = hashes.issue(out["hash"])
    ref_document, document = BOOTSTRAP_KEYS["document"]
    if ref_document in out:
        out[document] = out.pop(ref_document)
    return out


def _summary(summary: Any) -> Any:
    if not isinstance(summary, dict):
        return summary
    out = timestamps.record_to_dialect(summary)
    if isinstance(out.get("rollout"), dict):
        out["rollout"] = renamed(out["rollout"], table("percentage"))
    return out
