"""Assignment of units to experiment groups: the weighted hash, round robin, the rollout gate.

Pure functions only, no store. ``decide`` is the one rule table for "what happens to this unit
on this evaluation"; the store persists its answer. The hash is the documented one
(docs/reference-choices.md): first 8 bytes, big-endian, of SHA-256 of a key, modulo 10000.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

BUCKETS = 10000  # basis points: weights add up to this
WEIGHTED_HASH = "weightedHash"
ROUND_ROBIN = "roundRobin"
MANUAL = "manual"
ASSIGNMENT_MODES = (WEIGHTED_HASH, ROUND_ROBIN)
ACTIVE = "active"
UNENROLLED = "unenrolled"


def bucket(key: str) -> int:
    """The bucket (0..9999) of a key: SHA-256, first 8 bytes big-endian, mod 10000."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % BUCKETS


def hash_bucket(experiment_id: int, unit_id: str) -> int:
    """The weighted-hash bucket of a unit in an experiment."""
    return bucket(f"{experiment_id}:{unit_id}")


def rollout_bucket(experiment_id: int, unit_id: str) -> int:
    """The rollout-gate bucket of a unit in an experiment (independent of the group bucket)."""
    return bucket(f"rollout:{experiment_id}:{unit_id}")


def in_rollout(experiment_id: int, unit_id: str, percentage: float) -> bool:
    """Whether the rollout gate lets the unit in: its rollout bucket is below percentage x 100."""
    return rollout_bucket(experiment_id, unit_id) < percentage * 100


def weighted_index(weights: Sequence[int], at: int) -> int:
    """The index of the first group whose cumulative weight (in ordinal order) exceeds ``at``."""
    cumulative = 0
    for index, weight in enumerate(weights):
        cumulative += weight
        if cumulative > at:
            return index
    raise ValueError(f"bucket {at} is beyond the weight total {cumulative}")


def round_robin_index(counter: int, group_count: int) -> int:
    """The group index of the ``counter``-th automatically assigned unit (counter from 0)."""
    return counter % group_count


@dataclass(frozen=True)
class Rules:
    """What the assignment of one experiment depends on."""

    experiment_id: int
    assignment_mode: str
    auto_assignment: bool
    permanent_enrollment: bool
    required_properties: tuple[str, ...]
    rollout_percentage: float
    group_ids: tuple[int, ...]  # in ordinal order
    weights: tuple[int | None, ...]  # in ordinal order; None in roundRobin mode


@dataclass(frozen=True)
class Held:
    """The unit's stored assignment, if any."""

    group_id: int
    status: str
    source: str


class Action(StrEnum):
    """What the store must do with the unit's stored assignment."""

    KEEP = "keep"  # leave it as it is (and serve it if active)
    CREATE = "create"  # store a new assignment
    MOVE = "move"  # change the stored group (assignmentVersion + 1)
    NONE = "none"  # not enrolled on this evaluation; nothing stored changes


@dataclass(frozen=True)
class Decision:
    action: Action
    group_id: int | None = None
    source: str | None = None
    uses_round_robin: bool = False  # the store must advance the experiment's counter


def missing_properties(required: Sequence[str], context: Mapping[str, object]) -> list[str]:
    """The required properties absent from a unit's context."""
    return [name for name in required if name not in context]


def decide(
    rules: Rules,
    unit_id: str,
    held: Held | None,
    context: Mapping[str, object],
    round_robin_counter: int,
) -> Decision:
    """Decide one evaluation of one unit, in this order of precedence.

    1. a manual assignment is kept whatever else holds;
    2. an unenrolled unit stays unenrolled (only reactivate changes that);
    3. missing required properties: not enrolled on this evaluation;
    4. with permanentEnrollment, an active assignment keeps its group;
    5. outside the rollout gate, or with autoAssignment off: not enrolled on this evaluation;
    6. roundRobin keeps an existing assignment, else takes the next group in turn;
    7. weightedHash buckets with the current weights; a different group moves the assignment.
    """
    if held is not None and held.source == MANUAL:
        return Decision(Action.KEEP, held.group_id, held.source)
    if held is not None and held.status == UNENROLLED:
        return Decision(Action.KEEP, held.group_id, held.source)
    if missing_properties(rules.required_properties, context):
        return Decision(Action.NONE)
    if held is not None and rules.permanent_enrollment:
        return Decision(Action.KEEP, held.group_id, held.source)
    if not rules.auto_assignment or not in_rollout(
        rules.experiment_id, unit_id, rules.rollout_percentage
    ):
        return Decision(Action.NONE)
    if rules.assignment_mode == ROUND_ROBIN:
        if held is not None:
            return Decision(Action.KEEP, held.group_id, held.source)
        index = round_robin_index(round_robin_counter, len(rules.group_ids))
        return Decision(Action.CREATE, rules.group_ids[index], ROUND_ROBIN, uses_round_robin=True)
    weights = [weight or 0 for weight in rules.weights]
    group_id = rules.group_ids[weighted_index(weights, hash_bucket(rules.experiment_id, unit_id))]
    if held is None:
        return Decision(Action.CREATE, group_id, WEIGHTED_HASH)
    if held.group_id != group_id:
        return Decision(Action.MOVE, group_id, WEIGHTED_HASH)
    return Decision(Action.KEEP, held.group_id, held.source)
