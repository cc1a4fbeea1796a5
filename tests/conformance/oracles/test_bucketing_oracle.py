"""Unit tests of the bucketing oracles: chi-square p-values, goodness of fit, the declared hash."""

from __future__ import annotations

import hashlib
import math
import random

import pytest

from conformance.oracles.bucketing import (
    HASH_FUNCTIONS,
    chi_square_p,
    goodness_of_fit,
    group_index,
    noncentral_chi_square_cdf,
    upper_gamma_q,
)

# (statistic, degrees of freedom, upper-tail p) from standard chi-square tables.
TABLE = [
    (3.841458820694124, 1, 0.05),  # continued fraction branch (x/2 >= a + 1)
    (5.991464547107979, 2, 0.05),
    (13.815510557964274, 2, 0.001),
    (18.307038053275146, 10, 0.05),
    (4.865181910935, 10, 0.9),  # series branch (x/2 < a + 1)
    (0.10258658877510106, 2, 0.95),
    (2.705543454095404, 1, 0.1),
]


@pytest.mark.parametrize(("statistic", "freedom", "p"), TABLE)
def test_p_values_match_the_tables(statistic: float, freedom: int, p: float) -> None:
    assert chi_square_p(statistic, freedom) == pytest.approx(p, rel=1e-6)


def test_edges_of_the_incomplete_gamma() -> None:
    assert chi_square_p(0.0, 3) == 1.0
    assert chi_square_p(500.0, 2) < 1e-100
    # Q(1, x) = exp(-x) exactly
    for x in (0.1, 0.5, 1.9, 2.0, 7.5):
        assert upper_gamma_q(1.0, x) == pytest.approx(math.exp(-x), rel=1e-9)
    with pytest.raises(ValueError):
        upper_gamma_q(0.0, 1.0)


def test_perfect_counts_fit_and_skewed_counts_do_not() -> None:
    assert goodness_of_fit([500, 300, 200], [5000, 3000, 2000]).p_value == pytest.approx(1.0)
    skewed = goodness_of_fit([334, 333, 333], [5000, 3000, 2000])
    assert skewed.degrees_of_freedom == 2
    assert skewed.p_value < 1e-10


def test_a_unit_in_a_zero_weight_group_is_impossible() -> None:
    fit = goodness_of_fit([600, 400, 1], [6000, 4000, 0])
    assert fit.p_value == 0.0
    assert goodness_of_fit([600, 400, 0], [6000, 4000, 0]).degrees_of_freedom == 1


@pytest.mark.parametrize(
    ("bucket", "index"), [(0, 0), (4999, 0), (5000, 1), (7999, 1), (8000, 2), (9999, 2)]
)
def test_group_index_uses_cumulative_weights(bucket: int, index: int) -> None:
    assert group_index([5000, 3000, 2000], bucket) == index


def test_group_index_refuses_a_bucket_beyond_the_total() -> None:
    with pytest.raises(ValueError):
        group_index([5000, 3000, 2000], 10000)


@pytest.mark.parametrize(
    ("experiment_id", "unit", "bucket"),
    [(1, "a", 1954), (42, "player:1001", 5887), (7, "golden-0", 6865)],
)
def test_declared_hash_golden_vectors(experiment_id: int, unit: str, bucket: int) -> None:
    function = HASH_FUNCTIONS["sha256-8-mod-10000"]
    assert function.size == 10000
    assert function.bucket(experiment_id, unit) == bucket
    digest = hashlib.sha256(f"{experiment_id}:{unit}".encode()).hexdigest()
    assert int(digest[:16], 16) % 10000 == bucket


def _split(weights: list[int], used: list[int], units: int = 3000) -> float:
    """p-value of a split made with ``used`` weights, tested against ``weights``."""
    function = HASH_FUNCTIONS["sha256-8-mod-10000"]
    rng = random.Random(7)
    counts = [0] * len(weights)
    for _ in range(units):
        counts[group_index(used, function.bucket(99, f"u-{rng.getrandbits(64):016x}"))] += 1
    return goodness_of_fit(counts, weights).p_value


def test_the_split_test_passes_the_right_weights_and_catches_wrong_ones() -> None:
    assert _split([5000, 3000, 2000], [5000, 3000, 2000]) >= 0.001
    assert _split([5000, 3000, 2000], [3334, 3333, 3333]) < 0.001
    assert _split([5000, 3000, 2000], [3000, 5000, 2000]) < 0.001


def test_the_noncentral_cdf_is_the_central_one_without_noncentrality() -> None:
    for statistic in (0.1, 1.0, 5.99, 13.82):
        central = 1.0 - chi_square_p(statistic, 2)
        assert noncentral_chi_square_cdf(statistic, 2, 0.0) == pytest.approx(central)


@pytest.mark.parametrize(
    ("statistic", "noncentrality", "expected"),
    [(13.82, 30.0, 0.0311), (2.457, 20.0, 0.00104), (5.0, 4.0, 0.4973)],
)
def test_the_noncentral_cdf_matches_a_simulation(
    statistic: float, noncentrality: float, expected: float
) -> None:
    """``expected``: the share of 200,000 simulated draws (two squared normals, one shifted by
    the square root of the noncentrality) at or below ``statistic``."""
    found = noncentral_chi_square_cdf(statistic, 2, noncentrality)
    assert found == pytest.approx(expected, abs=0.003)


def test_a_split_on_the_weights_stops_early_and_one_off_them_never_does() -> None:
    from conformance.stages.scenarios.test_bucketing import on_weights

    on = goodness_of_fit([500, 300, 200], [5, 3, 2])
    off = goodness_of_fit([450, 330, 220], [5, 3, 2])  # Cohen's w 0.1: the least to show
    assert on_weights(on, 1000)
    assert not on_weights(off, 1000) and not on_weights(off, 2000)
