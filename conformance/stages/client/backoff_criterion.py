"""The backoff criterion on waits alone: growth as a rank trend pooled over every run of
consecutive failures of every instance, and lockstep as the instances' waits coinciding.

A backoff is random: one sample ratio ("the last wait at least twice the first") fails correct
clients whose jitter is wide (full jitter draws each wait from [0, d); decorrelated jitter can
step down). The criterion judges the behaviour instead:

- **Growth**: within each run of consecutive failures, every pair of waits (earlier, later)
  scores +1 if the later is longer, -1 if shorter (Mann-Kendall's S). S is summed over every run
  of every instance and standardised by its spread under "no growth": ``z = S / sqrt(sum of
  n(n-1)(2n+5)/18)``. A retry whose waits do not grow (a constant wait, with or without jitter
  of any distribution, or a tight loop: waits that are scheduling noise) makes every order of a
  run's waits equally likely, so ``z`` is close to a standard normal whatever the wait's
  distribution and seldom reaches ``TREND_Z``; a backoff whose expected wait grows with the
  failures reaches it, whatever its jitter (equal, full, decorrelated). docs/client-stage.md
  gives the rates on either side.
- **Lockstep**: instances that failed together and retry at the same moments carry no jitter.
  The waits are compared across instances at each (run, failure) position where the median wait
  is at least ``LOCKSTEP_FROM_S`` (shorter ones are too close to scheduling noise); a position
  whose range is within ``LOCKSTEP_S`` + ``LOCKSTEP_SHARE`` of the median coincides. More than
  half of the positions coinciding (at least ``LOCKSTEP_MIN_POSITIONS`` compared) is lockstep:
  a hiccup or two cannot hide a client without jitter, and a jittered one seldom coincides.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

TREND_Z = 3.5  # the pooled rank trend a backoff must reach (no growth: P(z >= 3.5) ~ 2.3e-4)
LOCKSTEP_S = 0.03
LOCKSTEP_SHARE = 0.03
LOCKSTEP_FROM_S = 0.3  # positions whose median wait is shorter are not compared
LOCKSTEP_MIN_POSITIONS = 4
LOCKSTEP_MIN_INSTANCES = 3

Runs = Sequence[Sequence[float]]  # runs of consecutive failures, each the waits after them


@dataclass(frozen=True)
class Trend:
    """The pooled rank trend of the waits over runs of consecutive failures."""

    score: int  # Mann-Kendall S summed over the runs
    variance: float  # its variance with no growth
    pairs: int  # (earlier, later) pairs compared
    runs: int  # runs of at least two waits

    @property
    def z(self) -> float:
        return self.score / math.sqrt(self.variance) if self.variance else 0.0

    @property
    def best_z(self) -> float:
        """The z of waits that all grow: the most these runs could show."""
        return self.pairs / math.sqrt(self.variance) if self.variance else 0.0

    @property
    def grows(self) -> bool:
        return self.z >= TREND_Z

    @property
    def decidable(self) -> bool:
        """Enough pairs that a growing backoff could reach TREND_Z at all."""
        return self.best_z >= TREND_Z


def trend(runs: Runs) -> Trend:
    """Mann-Kendall's S over each run of waits, pooled (runs of fewer than two waits add
    nothing)."""
    score = pairs = 0
    variance = 0.0
    counted = 0
    for waits in runs:
        n = len(waits)
        if n < 2:
            continue
        counted += 1
        for i in range(n - 1):
            first = waits[i]
            for later in waits[i + 1 :]:
                score += (later > first) - (later < first)
        pairs += n * (n - 1) // 2
        variance += n * (n - 1) * (2 * n + 5) / 18
    return Trend(score, variance, pairs, counted)


def mean_by_failure(runs: Runs) -> list[float]:
    """The mean wait after the k-th consecutive failure, over every run that reached it."""
    longest = max((len(r) for r in runs), default=0)
    means = []
    for k in range(longest):
        column = [r[k] for r in runs if len(r) > k]
        means.append(sum(column) / len(column))
    return means


@dataclass(frozen=True)
class Position:
    """The instances' waits at one (run, failure) position."""

    run: int  # from 1
    failure: int  # from 1
    spread: float  # max - min over the instances
    median: float

    @property
    def coincides(self) -> bool:
        return self.spread <= LOCKSTEP_S + LOCKSTEP_SHARE * self.median


def positions(per_instance: Sequence[Runs]) -> list[Position]:
    """The compared positions: every (run, failure) all instances reached, median long enough."""
    if len(per_instance) < LOCKSTEP_MIN_INSTANCES:
        return []
    found = []
    for r in range(min(len(runs) for runs in per_instance)):
        length = min(len(runs[r]) for runs in per_instance)
        for k in range(length):
            column = [runs[r][k] for runs in per_instance]
            middle = statistics.median(column)
            if middle >= LOCKSTEP_FROM_S:
                found.append(Position(r + 1, k + 1, max(column) - min(column), middle))
    return found


def lockstep(per_instance: Sequence[Runs]) -> list[Position]:
    """The compared positions when the instances move in lockstep (more than half of at least
    LOCKSTEP_MIN_POSITIONS coincide); [] when they drift apart or cannot be compared."""
    compared = positions(per_instance)
    if len(compared) < LOCKSTEP_MIN_POSITIONS:
        return []
    together = sum(1 for p in compared if p.coincides)
    return compared if 2 * together > len(compared) else []
