"""Bucketing oracles: declared assignment hash functions, and the chi-square goodness-of-fit test.

``HASH_FUNCTIONS`` maps a profile's ``experiments.hash_function`` name to the suite's own
implementation (the bucket of a unit in an experiment and the bucket count). ``chi_square_p``
is the upper tail of the chi-square distribution, computed with the regularized incomplete
gamma function (series / continued fraction), so the suite needs no scipy.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class HashFunction:
    """A declared weighted-hash function: ``bucket(experiment_id, unit_id)`` in ``range(size)``."""

    name: str
    size: int
    bucket: Callable[[int, str], int]


def _sha256_8_mod_10000(experiment_id: int, unit_id: str) -> int:
    digest = hashlib.sha256(f"{experiment_id}:{unit_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10000


HASH_FUNCTIONS: Mapping[str, HashFunction] = {
    "sha256-8-mod-10000": HashFunction("sha256-8-mod-10000", 10000, _sha256_8_mod_10000),
}


def group_index(weights: Sequence[int], bucket: int) -> int:
    """The first group (in ordinal order) whose cumulative weight exceeds the bucket."""
    cumulative = 0
    for index, weight in enumerate(weights):
        cumulative += weight
        if cumulative > bucket:
            return index
    raise ValueError(f"bucket {bucket} lies beyond the weight total {cumulative}")


# ------------------------------------------------------------------ chi-square

_EPSILON = 1e-15
_MAX_ITERATIONS = 10_000


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (modified Lentz; for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def upper_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return _upper_fraction(a, x)


def chi_square_p(statistic: float, degrees_of_freedom: int) -> float:
    """P(X >= statistic) for X chi-square distributed with the given degrees of freedom."""
    return upper_gamma_q(degrees_of_freedom / 2.0, statistic / 2.0)


def noncentral_chi_square_cdf(
    statistic: float, degrees_of_freedom: int, noncentrality: float
) -> float:
    """P(X <= statistic) for X noncentral chi-square: a Poisson(noncentrality / 2) mixture of
    central chi-squares with ``degrees_of_freedom + 2j`` degrees of freedom."""
    if statistic <= 0:
        return 0.0
    half = noncentrality / 2.0
    if half <= 0:
        return 1.0 - chi_square_p(statistic, degrees_of_freedom)
    last = int(half + 12.0 * math.sqrt(half) + 60)
    total = 0.0
    for j in range(last + 1):
        weight = math.exp(-half + j * math.log(half) - math.lgamma(j + 1.0))
        total += weight * (1.0 - chi_square_p(statistic, degrees_of_freedom + 2 * j))
    return min(1.0, total)


@dataclass(frozen=True)
class GoodnessOfFit:
    """A chi-square goodness-of-fit test of observed counts against expected shares."""

    observed: tuple[int, ...]
    expected: tuple[float, ...]
    statistic: float
    degrees_of_freedom: int
    p_value: float


def goodness_of_fit(observed: Sequence[int], weights: Sequence[float]) -> GoodnessOfFit:
    """Chi-square test of ``observed`` counts against shares proportional to ``weights``.

    Categories with zero weight must be empty (any unit there makes p = 0); they add no
    degree of freedom."""
    total = sum(observed)
    weight_sum = float(sum(weights))
    expected = tuple(total * w / weight_sum for w in weights)
    statistic = 0.0
    impossible = False
    for seen, wanted in zip(observed, expected, strict=True):
        if wanted == 0:
            impossible = impossible or seen > 0
            continue
        statistic += (seen - wanted) ** 2 / wanted
    freedom = max(1, sum(1 for w in expected if w > 0) - 1)
    p_value = 0.0 if impossible else chi_square_p(statistic, freedom)
    return GoodnessOfFit(tuple(observed), expected, statistic, freedom, p_value)
