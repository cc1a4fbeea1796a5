"""The backoff judge on simulated recordings of common backoff forms (``backoff_forms``): the
correct ones (the reference client, equal, full and decorrelated jitter) fail well under once in
1,000 stage runs; flat retries, a tight loop and lockstep retries are caught. Seeded: the same
recordings every run. ``benchmarks/bench_client_backoff.py`` counts the rates over 100,000
runs; here a few hundred runs are judged and the growth trend's margin over its threshold is
read off them."""

from __future__ import annotations

import random
import statistics

import pytest

from conformance.stages.client.backoff_criterion import TREND_Z, trend
from conformance.stages.client.judge_failures import closed_waits, judge_backoff
from conformance.verdict.outcome import Outcome
from tests.conformance.stages.client.backoff_forms import FORMS, Form, simulate

FAIL, PASS = Outcome.FAIL, Outcome.PASS

SCENARIOS = ("backoff-5xx", "backoff-refused")
CORRECT_RUNS = 150  # stage runs (both scenarios) per correct form
FAULTY_RUNS = 50
# A normal tail 3.3 standard deviations out holds 0.05 % of the runs: per scenario, so that a
# stage run (two scenarios) fails a correct client less than once in 1,000 on growth.
TAIL_SDS = 3.3


def judged(form: Form, runs: int, seed: int) -> tuple[int, list[float]]:
    """Stage runs in which either backoff scenario did not pass (a correct form) or failed (a
    faulty one), and every scenario's pooled trend z."""
    rng = random.Random(seed)
    count = 0
    zs: list[float] = []
    for _ in range(runs):
        verdicts = []
        for scenario in SCENARIOS:
            run = simulate(form, scenario, rng)
            verdicts.append(judge_backoff(run)[0].outcome)
            zs.append(trend([w for i in run.instances for w in closed_waits(i) if w]).z)
        count += any(v != PASS for v in verdicts) if form.correct else FAIL in verdicts
    return count, zs


@pytest.mark.parametrize("form", [f for f in FORMS if f.correct], ids=lambda f: f.name)
def test_correct_backoff_forms_pass(form: Form) -> None:
    failures, zs = judged(form, CORRECT_RUNS, seed=20261127)
    assert failures == 0
    mean, sd = statistics.fmean(zs), statistics.stdev(zs)
    assert (mean - TREND_Z) / sd >= TAIL_SDS, (form.name, mean, sd)


@pytest.mark.parametrize("form", [f for f in FORMS if not f.correct], ids=lambda f: f.name)
def test_faulty_backoff_forms_are_caught(form: Form) -> None:
    assert judged(form, FAULTY_RUNS, seed=11)[0] == FAULTY_RUNS


def test_a_flat_retrys_trend_is_a_standard_normal() -> None:
    # With no growth every order of a run's waits is equally likely: z is close to N(0, 1)
    # whatever the waits' distribution (P(z >= TREND_Z) ~ 2.3e-4). 600 scenario runs of a flat
    # retry with full jitter: the mean and spread of z are those of N(0, 1).
    flat = next(f for f in FORMS if f.name == "flat, full jitter")
    zs = judged(flat, 300, seed=5)[1]
    assert abs(statistics.fmean(zs)) < 0.15
    assert 0.85 < statistics.stdev(zs) < 1.15
