"""The experiment sections: ``experiments``, ``bootstrap_payload``, ``experiment_payload``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Experiments:
    """``experiments``."""

    unit_types: tuple[str, ...]
    assignment_modes: tuple[str, ...]
    max_groups: int
    weight_total: int | None  # None: weights have no fixed total
    page_size_max: int
    hash_function: str | None
    context_encoding: str


@dataclass(frozen=True)
class BootstrapPayload:
    """``bootstrap_payload``: field names of a bootstrap answer the spec does not show."""

    document: str
    assignments: str


@dataclass(frozen=True)
class ExperimentCreate:
    """``experiment_payload.create``: names of the create body, the record and catalog items."""

    name: str
    unit_type: str
    assignment_mode: str
    base_configuration_id: str
    required_properties: str
    groups: str
    group_label: str
    group_weight: str


@dataclass(frozen=True)
class ExperimentPayload:
    """``experiment_payload``: field names, query parameters and status values of the
    experiment payloads (spec 4.2 shows none of them)."""

    items: str
    next_cursor: str
    pagination: str  # "cursor" | "offset" | "page" | "link"
    paged_lists: tuple[str, ...]
    cursor_param: str
    limit_param: str
    offset_param: str
    page_param: str
    status: str
    status_param: str | None  # None: the lists take no status filter
    running: str
    terminated: str
    member_active: str
    member_unenrolled: str
    changeset: str
    changeset_format: str  # "segments" | "json-patch"
    unit_id: str
    group_id: str
    experiment_id: str
    percentage: str
    weights: str
    rollout_groups: str
    count_active: str
    count_unenrolled: str
    count_total: str
    count_groups: str
    property_name: str
    group_count_active: str | None  # None: as count_active
    group_count_unenrolled: str | None  # None: as count_unenrolled
    group_count_total: str | None  # None: as count_total
    weights_shape: str  # "map" | "list"
    manual_weights: bool
    environment_header: bool
    create: ExperimentCreate
