"""Judging the polling hint: no wait shorter than the profile's reading of the hint allows
(HONOUR-HINT: intervalSeconds itself under the default 'above' reading; a declared 'symmetric'
reading allows down to intervalSeconds times one minus jitterRatio), waits spread across polls
and across instances (HINT-JITTER), and the own cadence again once a 200 lacks the hint
(HINT-RELEASE). A 304 has no body, so it cannot say polling is gone: the hint stays in force
through 304s (``timeline.gaps``), and the waits after them are judged as hinted; only a 200
without polling releases it.

Jitter is judged robustly, so that scheduling noise can neither fail a jittered client nor pass
a fixed one: the interquartile range of all hinted waits must reach 10 % of the spread the
reading allows (a fixed wait shows only noise there), and the instances must not move in
lockstep (the median, over poll indices, of the instances' range must pass 30 ms + 1 % of the
interval; a shared random seed shows as lockstep), and the waits must be spread from poll to poll,
not only from instance to instance (``spread_criterion``: the instances' waits must not cluster
apart, a permutation test over every hinted wait of every instance). docs/client-stage.md gives
how often a correct client fails them under scheduling noise.
"""

from __future__ import annotations

import statistics

from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.scenarios import (
    HINT_JITTER,
    HINT_JITTER_PER_POLL,
    HINT_RELEASE,
    HONOUR_HINT,
)
from conformance.stages.client.spread_criterion import MIN_INSTANCES, MIN_WAITS, per_poll_spread
from conformance.stages.client.timeline import Gap, gaps, hint_bound, hint_width, margin
from conformance.verdict.finding import Finding, failed, passed, unmeasured

SPREAD_SHARE = 0.10
LOCKSTEP_S = 0.03
LOCKSTEP_SHARE = 0.01
RELEASE_FACTOR = 1.5  # a wait after the hint is gone may be this much over the own cadence
SYMMETRIC = "symmetric"  # the reading a profile must declare for waits below intervalSeconds


def hinted(run: ScenarioRun) -> dict[str, list[Gap]]:
    """Closed gaps under the hint (after a 200 carrying it, or a 304 while it is held), per
    instance."""
    return {i.name: [g for g in gaps(i) if g.hinted and not g.open] for i in run.instances}


def judge_hint(run: ScenarioRun) -> list[Finding]:
    reading = run.settings.jitter_reading
    short: list[str] = []
    count = 0
    symmetric_fits = True  # every short wait would pass a declared 'symmetric' reading
    bound_shown = ""
    for waits in hinted(run).values():
        for gap in waits:
            assert gap.hint is not None
            interval, ratio = gap.hint
            bound = hint_bound(interval, ratio, reading)
            bound_shown = f"{bound:.3f}s (intervalSeconds {interval:g}, jitterRatio {ratio:g})"
            count += 1
            if gap.seconds < bound - margin(bound):
                short.append(
                    f"{gap.after.instance} at {gap.after.arrived:.3f}s: {gap.seconds:.3f}s"
                )
                low = hint_bound(interval, ratio, SYMMETRIC)
                symmetric_fits = symmetric_fits and gap.seconds >= low - margin(low)
    if not count:
        return [unmeasured(HONOUR_HINT, "no poll followed an answer carrying the hint")]
    if short:
        declare = (
            f" (every wait fits the '{SYMMETRIC}' reading: a client that spreads its waits "
            f"around intervalSeconds declares client.jitter_reading: {SYMMETRIC})"
            if reading != SYMMETRIC and symmetric_fits
            else ""
        )
        return [
            failed(
                HONOUR_HINT,
                "the client polled faster than the hint allows",
                f"every wait after a 200 with polling, or a 304 while that hint is held (a 304 "
                f"cannot release it), >= {bound_shown} under the "
                f"'{reading}' reading (profile: client.jitter_reading), less a noise margin "
                f"of {margin(0):.2f}s + {100 * margin(1) - 100 * margin(0):.0f}%",
                f"{len(short)} of {count} waits shorter: " + "; ".join(short[:5]) + declare,
            )
        ]
    return [passed(HONOUR_HINT, "hint honoured", f"{count} hinted waits")]


def judge_jitter(run: ScenarioRun) -> list[Finding]:
    """The hinted waits' spread (spec 4.3 "spread by jitterRatio": wide enough, and no two
    instances in lockstep), then whether each wait is a fresh draw (the convention of
    ``HINT_JITTER_PER_POLL``: a spread drawn once per instance keeps the spec's words)."""
    reading = run.settings.jitter_reading
    per_instance = hinted(run)
    waits = [g.seconds for gs in per_instance.values() for g in gs]
    sample = next((g for gs in per_instance.values() for g in gs), None)
    both = (HINT_JITTER, HINT_JITTER_PER_POLL)
    if sample is None or len(waits) < 6 or sample.hint is None:
        return [unmeasured(i, f"only {len(waits)} hinted waits (6 needed)") for i in both]
    interval, ratio = sample.hint
    width = hint_width(interval, ratio, reading)
    bound = hint_bound(interval, ratio, reading)
    if any(w < bound - margin(bound) for w in waits):
        return [
            unmeasured(
                i,
                "the waits do not honour the hint (POLL-CLIENT-HONOUR-HINT): their spread says "
                "nothing about jitterRatio",
            )
            for i in both
        ]
    quartiles = statistics.quantiles(waits, n=4)
    spread = quartiles[2] - quartiles[0]
    if spread < SPREAD_SHARE * width:
        return [
            failed(
                HINT_JITTER,
                "the client's waits under the hint are not spread by jitterRatio",
                f"waits spread over [{hint_bound(interval, ratio, reading):.2f}s, "
                f"{hint_bound(interval, ratio, reading) + width:.2f}s) ('{reading}' reading): "
                f"an interquartile range of at least {SPREAD_SHARE * width:.3f}s",
                f"interquartile range {spread:.3f}s over {len(waits)} waits: "
                + ", ".join(f"{w:.3f}" for w in sorted(waits)[:12]),
            ),
            unmeasured(HINT_JITTER_PER_POLL, "the waits are not spread (POLL-CLIENT-HINT-JITTER)"),
        ]
    lockstep = _lockstep(per_instance, LOCKSTEP_S + LOCKSTEP_SHARE * interval)
    if lockstep is not None:
        return [
            failed(
                HINT_JITTER,
                "the client instances wait in lockstep under the hint (no spread across clients)",
                f"instances started together drift apart: at most half of the poll indices with "
                f"all instances within {LOCKSTEP_S + LOCKSTEP_SHARE * interval:.3f}s",
                lockstep,
            ),
            unmeasured(HINT_JITTER_PER_POLL, "the instances wait in lockstep"),
        ]
    spread_found = passed(
        HINT_JITTER,
        "hint spread",
        f"interquartile range {spread:.3f}s; no two instances in lockstep",
    )
    per_poll = per_poll_spread([[g.seconds for g in gs] for gs in per_instance.values()])
    if not per_poll.judged:
        return [
            spread_found,
            unmeasured(
                HINT_JITTER_PER_POLL,
                f"too few hinted waits to tell a spread per poll from one per instance: "
                f"{MIN_INSTANCES} instances with {MIN_WAITS} each needed, waits per instance "
                + ", ".join(str(len(gs)) for gs in per_instance.values()),
            ),
        ]
    if per_poll.clustered:
        shown = "; ".join(
            f"{name}: " + ", ".join(f"{g.seconds:.3f}" for g in gs[:6])
            for name, gs in per_instance.items()
        )
        return [
            spread_found,
            failed(
                HINT_JITTER_PER_POLL,
                "the client's waits under the hint are spread across instances, not from poll "
                "to poll (each instance keeps its own wait)",
                "every hinted wait a fresh draw: the waits of one instance no more alike than "
                "those of different instances (Kruskal-Wallis statistic reached by at least one "
                f"of {per_poll.tried} permutations of the waits over the instances)",
                f"none of {per_poll.tried} permutations reached the instances' clustering "
                f"(waits per instance {list(per_poll.sizes)}): {shown}",
            ),
        ]
    return [
        spread_found,
        passed(
            HINT_JITTER_PER_POLL,
            "hint spread per poll",
            f"instances' clustering reached within {per_poll.tried} permutation(s)",
        ),
    ]


def _lockstep(per_instance: dict[str, list[Gap]], tolerance: float) -> str | None:
    """A description of the lockstep found (None: the instances drift apart or cannot tell)."""
    series = [[g.seconds for g in gs] for gs in per_instance.values() if gs]
    if len(series) < 2:
        return None
    for shift in (0, 1, -1):
        aligned = [
            s[max(0, shift) :] if k == 0 else s[max(0, -shift) :] for k, s in enumerate(series)
        ]
        length = min(len(s) for s in aligned)
        if length < 3:
            continue
        ranges = [max(s[k] for s in aligned) - min(s[k] for s in aligned) for k in range(length)]
        if statistics.median(ranges) <= tolerance:
            return f"{len(series)} instances, shift {shift}: per-poll ranges " + ", ".join(
                f"{r:.3f}s" for r in ranges
            )
    return None


def judge_release(run: ScenarioRun) -> list[Finding]:
    before: list[float] = []
    after: list[float] = []
    still_open: list[float] = []
    for instance in run.instances:
        seen_hint = False
        for gap in gaps(instance):
            if gap.hint is not None:  # in force, through 304s too
                seen_hint = True
                continue
            if gap.after.status not in (200, 304):
                continue
            if not seen_hint:
                if not gap.open:
                    before.append(gap.seconds)
                continue
            (still_open if gap.open else after).append(gap.seconds)
    if len(before) < 2:
        return [
            unmeasured(
                HINT_RELEASE, "the own cadence was not seen (fewer than 2 polls before the hint)"
            )
        ]
    if not after and not still_open:
        return [
            failed(
                HINT_RELEASE,
                "the client did not poll again after the hint was gone",
                "polls at the own cadence after a 200 without polling",
                "no poll after the release",
            )
        ]
    cadence = statistics.median(before)
    limit = max(RELEASE_FACTOR * cadence, cadence + 0.1)
    hint_bounds = [
        hint_bound(g.hint[0], g.hint[1], run.settings.jitter_reading)
        for gs in hinted(run).values()
        for g in gs
        if g.hint is not None
    ]
    if hint_bounds and limit >= min(hint_bounds):
        return [
            unmeasured(
                HINT_RELEASE,
                f"the own cadence ({cadence:.3f}s) is too close to the hint at this time scale "
                "to tell them apart (lower client.time_scale or RCES_TIME_SCALE's effect)",
            )
        ]
    # An open wait (the stage stopped the client) counts once it is already too long.
    closed = after + [w for w in still_open if w > limit]
    if not closed:
        return [unmeasured(HINT_RELEASE, "no wait after the release was complete")]
    kept = statistics.median(closed)
    if kept > limit:
        return [
            failed(
                HINT_RELEASE,
                "the client stayed slow after the hint was gone",
                f"waits after a 200 without polling back at the own cadence: median <= "
                f"{limit:.3f}s ({RELEASE_FACTOR:g} x the {cadence:.3f}s seen before the hint)",
                f"median {kept:.3f}s over {len(closed)} waits: "
                + ", ".join(f"{w:.3f}" for w in closed[:10]),
            )
        ]
    return [
        passed(HINT_RELEASE, "own cadence again", f"median {kept:.3f}s, cadence {cadence:.3f}s")
    ]
