"""Unit tests of refserver.assignment: the documented hash, the split, round robin, decide()."""

from __future__ import annotations

import hashlib
import random

import pytest

from refserver import assignment
from refserver.assignment import Action, Held, Rules, decide

# Golden vectors of the documented function (first 8 bytes big-endian of SHA-256, mod 10000).
GOLDEN = [
    ((1, "alice"), 5168, 2092),
    ((1, "bob"), 6651, 4635),
    ((42, "player-7"), 4816, 3887),
]

# Chi-square critical values at p = 0.001, by degrees of freedom (standard tables).
CHI2_CRITICAL_P001 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322}


@pytest.mark.parametrize(("key", "group_bucket", "gate_bucket"), GOLDEN)
def test_golden_vectors(key: tuple[int, str], group_bucket: int, gate_bucket: int) -> None:
    assert assignment.hash_bucket(*key) == group_bucket
    assert assignment.rollout_bucket(*key) == gate_bucket


def test_bucket_is_the_documented_function() -> None:
    for unit in ("u1", "ü-ñ", "x" * 256):
        digest = hashlib.sha256(f"9:{unit}".encode()).digest()
        assert assignment.hash_bucket(9, unit) == int.from_bytes(digest[:8], "big") % 10000


def test_weighted_index_boundaries() -> None:
    weights = [5000, 3000, 2000]
    assert assignment.weighted_index(weights, 0) == 0
    assert assignment.weighted_index(weights, 4999) == 0
    assert assignment.weighted_index(weights, 5000) == 1
    assert assignment.weighted_index(weights, 7999) == 1
    assert assignment.weighted_index(weights, 8000) == 2
    assert assignment.weighted_index(weights, 9999) == 2
    assert assignment.weighted_index([0, 10000], 0) == 1
    with pytest.raises(ValueError):
        assignment.weighted_index([5000, 4000], 9500)


def _rules(**overrides: object) -> Rules:
    values: dict[str, object] = {
        "experiment_id": 17,
        "assignment_mode": assignment.WEIGHTED_HASH,
        "auto_assignment": True,
        "permanent_enrollment": False,
        "required_properties": (),
        "rollout_percentage": 100.0,
        "group_ids": (101, 102, 103),
        "weights": (5000, 3000, 2000),
    }
    values.update(overrides)
    return Rules(**values)  # type: ignore[arg-type]


def test_weighted_hash_is_deterministic() -> None:
    rules = _rules()
    first = [decide(rules, f"unit-{n}", None, {}, 0).group_id for n in range(500)]
    second = [decide(rules, f"unit-{n}", None, {}, 0).group_id for n in range(500)]
    assert first == second
    assert set(first) == {101, 102, 103}


def test_weighted_split_passes_chi_square() -> None:
    rng = random.Random(20260101)
    weights = (5000, 3000, 2000)
    rules = _rules(weights=weights)
    n = 100_000
    observed = {gid: 0 for gid in rules.group_ids}
    for _ in range(n):
        unit = f"{rng.getrandbits(64):016x}"
        decision = decide(rules, unit, None, {}, 0)
        assert decision.group_id is not None
        observed[decision.group_id] += 1
    expected = [n * w / 10000 for w in weights]
    chi2 = sum(
        (observed[gid] - exp) ** 2 / exp for gid, exp in zip(rules.group_ids, expected, strict=True)
    )
    assert chi2 < CHI2_CRITICAL_P001[len(weights) - 1], (chi2, observed)


def test_chi_square_catches_a_skewed_split() -> None:
    """The statistic above has teeth: a 5100/2900/2000 split over the same ids is rejected."""
    rng = random.Random(20260101)
    n = 100_000
    counts = [0, 0, 0]
    for _ in range(n):
        at = assignment.bucket(f"{rng.getrandbits(64):016x}")
        counts[assignment.weighted_index([5100, 2900, 2000], at)] += 1
    expected = [50000, 30000, 20000]
    chi2 = sum((o - e) ** 2 / e for o, e in zip(counts, expected, strict=True))
    assert chi2 > CHI2_CRITICAL_P001[2]


def test_round_robin_is_balanced() -> None:
    rules = _rules(assignment_mode=assignment.ROUND_ROBIN, weights=(None, None, None))
    counts = {gid: 0 for gid in rules.group_ids}
    for counter in range(300):
        decision = decide(rules, f"u{counter}", None, {}, counter)
        assert decision.action is Action.CREATE and decision.uses_round_robin
        assert decision.group_id is not None
        counts[decision.group_id] += 1
    assert set(counts.values()) == {100}


def test_round_robin_keeps_existing() -> None:
    rules = _rules(assignment_mode=assignment.ROUND_ROBIN, weights=(None, None, None))
    held = Held(103, assignment.ACTIVE, assignment.ROUND_ROBIN)
    decision = decide(rules, "u", held, {}, 5)
    assert decision.action is Action.KEEP and decision.group_id == 103
    assert not decision.uses_round_robin


def test_manual_overrides_everything() -> None:
    rules = _rules(required_properties=("country",), rollout_percentage=0.0, auto_assignment=False)
    held = Held(102, assignment.ACTIVE, assignment.MANUAL)
    decision = decide(rules, "u", held, {}, 0)
    assert decision.action is Action.KEEP and decision.group_id == 102


def test_unenrolled_stays_unenrolled() -> None:
    held = Held(101, assignment.UNENROLLED, assignment.WEIGHTED_HASH)
    decision = decide(_rules(weights=(0, 0, 10000)), "u", held, {}, 0)
    assert decision.action is Action.KEEP and decision.group_id == 101


def test_required_properties_gate() -> None:
    rules = _rules(required_properties=("country", "level"))
    assert decide(rules, "u", None, {"country": "fr"}, 0).action is Action.NONE
    assert decide(rules, "u", None, {"country": "fr", "level": 3}, 0).action is Action.CREATE


def test_auto_assignment_off_enrols_nobody() -> None:
    assert decide(_rules(auto_assignment=False), "u", None, {}, 0).action is Action.NONE


def test_rollout_gate_share() -> None:
    rules = _rules(rollout_percentage=25.0)
    enrolled = sum(
        decide(rules, f"u{n}", None, {}, 0).action is Action.CREATE for n in range(20_000)
    )
    assert 4_600 < enrolled < 5_400
    assert all(
        decide(_rules(rollout_percentage=0.0), f"u{n}", None, {}, 0).action is Action.NONE
        for n in range(200)
    )


def test_weight_change_moves_unless_permanent() -> None:
    unit = next(
        f"u{n}" for n in range(1000) if assignment.hash_bucket(17, f"u{n}") < 5000
    )  # in group 101 under 5000/3000/2000
    held = Held(101, assignment.ACTIVE, assignment.WEIGHTED_HASH)
    moved = decide(_rules(weights=(0, 10000, 0)), unit, held, {}, 0)
    assert moved.action is Action.MOVE and moved.group_id == 102
    kept = decide(_rules(weights=(0, 10000, 0), permanent_enrollment=True), unit, held, {}, 0)
    assert kept.action is Action.KEEP and kept.group_id == 101
    same = decide(_rules(), unit, held, {}, 0)
    assert same.action is Action.KEEP
