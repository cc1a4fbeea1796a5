"""The per-poll spread criterion: whether a client's hinted waits are spread from poll to poll,
or only from instance to instance (each instance drew its spread once and keeps it).

Judged as behaviour over every hinted wait of every instance, not one sample, and without
assuming how the jitter is distributed: if every wait is a fresh draw, the waits of all
instances are exchangeable, so which instance a wait belongs to says nothing about its rank.
The Kruskal-Wallis statistic (rank sums per instance, ``sum R_i^2 / n_i``) measures how much
the instances' waits cluster apart; its p-value is taken by permuting the ranks over the
instances (exact under exchangeability, whatever the waits' distribution and the scheduling
noise, provided the noise is alike for every instance). A spread drawn once per instance makes
every instance's waits a tight cluster of their own: the statistic sits at its maximum, which
fewer than one permutation in tens of thousands reaches.

A correct client fails when none of ``PERMUTATIONS`` permutations reaches its statistic: at most
once in ``PERMUTATIONS + 1`` runs, whatever its jitter (``benchmarks/bench_client_hint_spread.py``
measures both sides). The permutations stop at the first that reaches it (a correct client's
typical statistic is reached within a few), and are seeded by the waits (the same recording
gives the same verdict).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

PERMUTATIONS = 20_000  # a correct client fails at most once in 20,001 runs
MIN_INSTANCES = 3
MIN_WAITS = 3  # an instance with fewer hinted waits is left out


@dataclass(frozen=True)
class Spread:
    """The criterion's reading of the hinted waits: whether it could judge them, and whether the
    instances cluster apart (spread per instance, not per poll)."""

    judged: bool
    clustered: bool
    reached: int  # permutations reaching the observed statistic (stopped at the first)
    tried: int
    sizes: tuple[int, ...]


def _statistic(ranks: Sequence[int], sizes: Sequence[int]) -> float:
    total, at = 0.0, 0
    for size in sizes:
        part = sum(ranks[at : at + size])
        total += part * part / size
        at += size
    return total


def per_poll_spread(waits: Sequence[Sequence[float]]) -> Spread:
    """Read the hinted waits of each instance (one sequence per instance)."""
    series = [list(s) for s in waits if len(s) >= MIN_WAITS]
    sizes = tuple(len(s) for s in series)
    if len(series) < MIN_INSTANCES:
        return Spread(False, False, 0, 0, sizes)
    labelled = sorted((w, k) for k, s in enumerate(series) for w in s)
    ranks_of: list[list[int]] = [[] for _ in series]
    for rank, (_, k) in enumerate(labelled, start=1):
        ranks_of[k].append(rank)
    ranks = [r for group in ranks_of for r in group]
    observed = _statistic(ranks, sizes)
    rng = random.Random(repr([round(w, 6) for s in series for w in s]))
    shuffled = list(ranks)
    for tried in range(1, PERMUTATIONS + 1):
        rng.shuffle(shuffled)
        if _statistic(shuffled, sizes) >= observed - 1e-9:
            return Spread(True, False, 1, tried, sizes)
    return Spread(True, True, 0, PERMUTATIONS, sizes)
