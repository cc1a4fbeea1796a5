"""Judging what a client does after a refusal: no request sooner than a 429's Retry-After
(RETRY-AFTER); after 5xx answers or reset connections, waits that grow and, across instances
that failed together, do not move in lockstep (BACKOFF, by ``backoff_criterion``).

Both rest on the production convention alone (observed-conventions: "back off, doubling each time
up to 5 minutes, and never retry sooner than a Retry-After says"); the spec has no words on a
client's failures. Their failures say so: the catalogue gives them the convention basis, so an
undeclared one is a drop-in difference, never an interface failure (``verdict.levels``). A
client whose waits after failures never go below its own cadence does not hammer the service,
yet its waits do not grow: the convention's growth is what it misses, and the message names
that, not a spec rule."""

from __future__ import annotations

from conformance.stages.client.backoff_criterion import (
    LOCKSTEP_FROM_S,
    LOCKSTEP_S,
    LOCKSTEP_SHARE,
    TREND_Z,
    lockstep,
    mean_by_failure,
    trend,
)
from conformance.stages.client.runs import InstanceRun, ScenarioRun
from conformance.stages.client.scenarios import BACKOFF, RETRY_AFTER
from conformance.stages.client.timeline import Gap, gaps, margin
from conformance.verdict.finding import Finding, failed, passed, unmeasured


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
                "the client came back sooner than Retry-After (a production convention; the spec "
                "has no words on it: drop-in)",
                "no request before the Retry-After (delta-seconds or HTTP date) has passed, "
                f"less a noise margin of {margin(0):.2f}s + 2% (observed convention: 'never retry "
                "sooner than a Retry-After says')",
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


def closed_waits(instance: InstanceRun) -> list[list[float]]:
    """Each run of consecutive failures as its closed waits (the stage's stop ends none)."""
    return [[g.seconds for g in run if not g.open] for run in failure_runs(instance)]


def judge_backoff(run: ScenarioRun) -> list[Finding]:
    per_instance = [closed_waits(i) for i in run.instances]
    pooled = [waits for runs in per_instance for waits in runs if waits]
    found = trend(pooled)
    means = ", ".join(f"{m:.3f}" for m in mean_by_failure(pooled))
    shown = (
        f"pooled rank trend z = {found.z:.2f} (S = {found.score} over {found.pairs} pairs in "
        f"{found.runs} runs of consecutive failures, {len(run.instances)} instance(s)); mean "
        f"wait after failure 1, 2, ...: {means} s"
    )
    if not found.decidable:
        return [
            unmeasured(
                BACKOFF,
                f"too few consecutive failures were followed by a retry to show growth ({shown}; "
                f"even waits that all grew would reach z = {found.best_z:.2f} < {TREND_Z:g})",
            )
        ]
    if not found.grows:
        floor = _floor(run)
        return [
            failed(
                BACKOFF,
                "the client's waits do not grow with consecutive failures, as the production "
                "convention's doubling backoff does (no spec words: drop-in)"
                + ("; they never went below its own cadence" if floor else ""),
                f"waits that grow with each consecutive 5xx answer or reset connection, as the "
                f"observed convention has it ('back off, doubling each time up to 5 minutes'): "
                f"within every run of failures, later waits mostly longer than earlier ones, a "
                f"rank trend pooled over the runs and instances of z >= {TREND_Z:g} (a retry "
                f"whose waits do not grow reaches it about 2 times in 10,000)",
                shown + "; " + "; ".join(_listed(run)),
            )
        ]
    together = lockstep(per_instance)
    if together:
        coinciding = [p for p in together if p.coincides]
        return [
            failed(
                BACKOFF,
                "the client's backoff has no jitter: instances that failed together retry in "
                "lockstep (the production convention's backoff; no spec words: drop-in)",
                f"instances drifting apart: at most half of the compared (run, failure) "
                f"positions (median wait >= {LOCKSTEP_FROM_S:g}s) with every instance's wait "
                f"within {LOCKSTEP_S:g}s + {100 * LOCKSTEP_SHARE:g}% of the median",
                f"{len(coinciding)} of {len(together)} positions coincide across "
                f"{len(run.instances)} instances: "
                + ", ".join(
                    f"run {p.run} failure {p.failure}: range {p.spread:.3f}s" for p in together[:8]
                ),
            )
        ]
    return [passed(BACKOFF, "backed off", shown)]


def _floor(run: ScenarioRun) -> bool:
    """Whether every closed wait after a failure was at least the shortest wait between the
    client's successful polls (its own cadence): a flat retry that never hammers."""
    waits = [w for i in run.instances for ws in closed_waits(i) for w in ws]
    normal = [
        g.seconds
        for i in run.instances
        for g in gaps(i)
        if g.after.status in (200, 304) and g.hint is None and not g.open
    ]
    return bool(waits and normal) and min(waits) >= min(normal) - margin(min(normal))


def _listed(run: ScenarioRun) -> list[str]:
    """A few instances' waits, run by run, for the evidence."""
    lines = []
    for instance in run.instances[:3]:
        runs = [w for w in closed_waits(instance) if w]
        lines.append(
            f"{instance.name}: "
            + " | ".join(", ".join(f"{w:.3f}" for w in waits) for waits in runs[:4])
        )
    return lines
