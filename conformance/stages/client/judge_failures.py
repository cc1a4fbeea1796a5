"""Judging what a client does after a refusal: no request sooner than a 429's Retry-After
(RETRY-AFTER); after 5xx answers or reset connections, waits that grow and, across instances
that failed together, do not move in lockstep (BACKOFF)."""

from __future__ import annotations

import statistics

from conformance.stages.client.findings import Finding, failed, passed, unmeasured
from conformance.stages.client.runs import InstanceRun, ScenarioRun
from conformance.stages.client.scenarios import BACKOFF, RETRY_AFTER
from conformance.stages.client.timeline import Gap, gaps, margin

GROWTH = 2.0  # the last wait of a run of failures is at least this many times the first
MIN_WAITS = 3  # closed waits a run needs to show growth
LOCKSTEP_S = 0.03
LOCKSTEP_SHARE = 0.03
LOCKSTEP_FROM_S = 0.2  # waits shorter than this are too close to noise to compare


def judge_retry_after(run: ScenarioRun) -> list[Finding]:
    early: list[str] = []
    judged = 0
    for instance in run.instances:
        for gap in gaps(instance):
            asked = gap.after.retry_after_s
            if asked is None or not gap.rate_limited:
                continue
            if gap.open:
                if gap.seconds < asked:
                    continue  # stopped before the wait was over: nothing to judge
                judged += 1
                continue
            judged += 1
            if gap.seconds < asked - margin(asked):
                early.append(
                    f"{gap.after.instance} at {gap.after.answered:.3f}s: next request after "
                    f"{gap.seconds:.3f}s, Retry-After asked {asked:.3f}s"
                )
    if not judged:
        return [unmeasured(RETRY_AFTER, "no 429 was answered and waited out")]
    if early:
        return [
            failed(
                RETRY_AFTER,
                "the client came back sooner than Retry-After",
                "no request before the Retry-After (delta-seconds or HTTP date) has passed, "
                f"less a noise margin of {margin(0):.2f}s + 2%",
                "; ".join(early),
            )
        ]
    return [passed(RETRY_AFTER, "Retry-After honoured", f"{judged} 429s")]


def failure_runs(instance: InstanceRun) -> list[list[Gap]]:
    """Runs of consecutive failed polls (5xx or reset), as the waits after each."""
    found: list[list[Gap]] = []
    current: list[Gap] = []
    for gap in gaps(instance):
        if gap.failed:
            current.append(gap)
        elif current:
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def judge_backoff(run: ScenarioRun) -> list[Finding]:
    problems: list[str] = []
    shown: list[str] = []
    series: list[list[float]] = []
    for instance in run.instances:
        for failures in failure_runs(instance):
            waits = [g.seconds for g in failures if not g.open]
            if len(waits) < MIN_WAITS:
                continue
            series.append(waits)
            shown.append(f"{instance.name}: " + ", ".join(f"{w:.3f}" for w in waits))
            if waits[-1] < GROWTH * waits[0] or min(waits) <= 0.001:
                problems.append(
                    f"{instance.name} waited "
                    + ", ".join(f"{w:.3f}s" for w in waits)
                    + " after consecutive failures"
                )
    if not series:
        return [unmeasured(BACKOFF, f"no run of {MIN_WAITS} failures followed by polls was seen")]
    if problems:
        return [
            failed(
                BACKOFF,
                "the client did not back off after failures (it hammered the service)",
                f"waits that grow over consecutive 5xx answers or reset connections: the last at "
                f"least {GROWTH:g} x the first",
                "; ".join(problems[:4]),
            )
        ]
    lockstep = _lockstep(series)
    if lockstep:
        return [
            failed(
                BACKOFF,
                "the client's backoff has no jitter: instances that failed together retry in "
                "lockstep",
                f"instances drifting apart: at some compared failure, a range over "
                f"{LOCKSTEP_S:g}s + {100 * LOCKSTEP_SHARE:g}% of the wait",
                lockstep,
            )
        ]
    return [passed(BACKOFF, "backed off", "; ".join(shown[:4]))]


def _lockstep(series: list[list[float]]) -> str:
    """Lockstep at every compared failure (waits of at least LOCKSTEP_FROM_S), or at all but one
    of five or more; "" otherwise. Simulated with 10 ms of exponential noise on each wait, a
    jittered backoff (ratio 0.2, 8 failures, 4 instances) is never taken for lockstep in 20,000
    runs, and a backoff without jitter escapes in 0.5 % of them."""
    if len(series) < 3:
        return ""
    length = min(len(s) for s in series)
    compared = []
    for k in range(length):
        column = [s[k] for s in series]
        middle = statistics.median(column)
        if middle < LOCKSTEP_FROM_S:
            continue
        spread = max(column) - min(column)
        compared.append((k + 1, spread, spread <= LOCKSTEP_S + LOCKSTEP_SHARE * middle))
    apart = sum(1 for _, _, lock in compared if not lock)
    # One failure out of step is scheduling noise once five or more are compared.
    if len(compared) < 2 or apart > (1 if len(compared) >= 5 else 0):
        return ""
    return f"{len(series)} instances; range at failure " + ", ".join(
        f"{k}: {spread:.3f}s" for k, spread, _ in compared
    )
