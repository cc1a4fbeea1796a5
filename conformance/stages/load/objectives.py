"""The objectives a target declares for itself under the fleet (profile ``load.latency_p50_ms``,
``latency_p99_ms``, ``min_not_modified_share``, ``min_throughput``), each judged as its catalogue
requirement (``POLL-DECLARED-*``, ``stage: load``) only where declared, "not configured" otherwise.

As in ``judge``, what the target answered is evidence; only the generator's own shortfall (its
lag, a plan that never offers the declared rate, no poll that could be answered 304) leaves
an objective unmeasured, with the figure that proves it.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from conformance.stages.load.judge import Declared
from conformance.stages.load.records import Poll, Results
from conformance.stages.load.series import percentile
from conformance.verdict.finding import EVERY, Finding, failed, passed, unconfigured, unmeasured
from conformance.verdict.outcome import Outcome

# requirement id -> the profile keys (under ``load:``) that declare it
KEYS = {
    "POLL-DECLARED-LATENCY": ("latency_p50_ms", "latency_p99_ms"),
    "POLL-DECLARED-NOT-MODIFIED-SHARE": ("min_not_modified_share",),
    "POLL-DECLARED-THROUGHPUT": ("min_throughput",),
}
PERCENTILES = {"latency_p50_ms": 0.5, "latency_p99_ms": 0.99}
PUNCTUAL_S = 0.02  # latency is read on polls sent within this of their plan (the hub was free)
PUNCTUAL_SHARE = 0.5  # fewer punctual polls than this share: the generator's own shortfall
THROUGHPUT_SLACK = 0.95  # answers landing in a second may straddle its edges


def _undeclared(requirement: str) -> Finding:
    keys = KEYS[requirement]
    return unconfigured(EVERY, f"load.{keys[-1]}", f"the profile declares no {' or '.join(keys)}")


def latency(results: Results, declared: Declared) -> Finding:
    """p50 and p99 of the time to answer status polls within the declared figures, over the polls
    the generator sent on time (its hub was free, so its reading of the answer is the target's);
    a poll never answered counts as slowest."""
    stated = {k: declared.objectives.get(k) for k in KEYS["POLL-DECLARED-LATENCY"]}
    limits = {k: v for k, v in stated.items() if v is not None}
    if not limits:
        return _undeclared("POLL-DECLARED-LATENCY")
    punctual = [p for p in results.polls if p.sent - p.planned <= PUNCTUAL_S]
    if len(punctual) < PUNCTUAL_SHARE * len(results.polls) or not punctual:
        return unmeasured(
            EVERY,
            f"only {len(punctual)} of {len(results.polls)} polls left the generator within "
            f"{PUNCTUAL_S * 1000:.0f} ms of plan (fewer than {PUNCTUAL_SHARE:.0%}): its latency "
            "readings would carry its own delay (its shortfall)",
        )
    times = [p.latency * 1000 if p.status else math.inf for p in punctual]
    values = {key: percentile(times, PERCENTILES[key]) for key in limits}
    missed = {key: (values[key], limit) for key, limit in limits.items() if values[key] > limit}
    if not missed:
        return passed(
            EVERY, received=", ".join(f"{_short(k)} {v:.1f} ms" for k, v in values.items())
        )
    shown = "; ".join(
        f"{_short(key)} "
        + ("never answered" if math.isinf(value) else f"{value:.1f} ms")
        + f" (declared at most {limit:g} ms)"
        for key, (value, limit) in missed.items()
    )
    return failed(
        EVERY,
        "status latency over the declared objective",
        "status latency within the declared "
        + ", ".join(f"{_short(k)} {v:g} ms" for k, v in limits.items())
        + f", over the polls sent within {PUNCTUAL_S * 1000:.0f} ms of plan",
        f"{shown}, over {len(punctual)} of {len(results.polls)} polls",
    )


def _short(key: str) -> str:
    return key.removeprefix("latency_").removesuffix("_ms")


def _eligible(results: Results, declared: Declared) -> list[Poll]:
    """Polls answered 200 or 304 that could have been a 304: the poller's previous answer was a
    200 or 304 (so it sent that hash) and no write was answered since shortly before it."""
    done = sorted(w.done for w in results.writes if w.status == 200)
    by_poller: dict[str, list[Poll]] = defaultdict(list)
    for poll in results.polls:
        by_poller[poll.instance].append(poll)
    eligible = []
    for polls in by_poller.values():
        polls.sort(key=lambda p: p.sent)
        for before, poll in itertools.pairwise(polls):
            if before.status not in (200, 304) or poll.status not in (200, 304):
                continue
            since = before.sent - declared.propagation_s
            if not any(since < t <= poll.sent for t in done):
                eligible.append(poll)
    return eligible


def not_modified_share(results: Results, declared: Declared) -> Finding:
    """Of the polls that could be answered 304, at least the declared share is."""
    limit = declared.objectives.get("min_not_modified_share")
    if limit is None:
        return _undeclared("POLL-DECLARED-NOT-MODIFIED-SHARE")
    eligible = _eligible(results, declared)
    if not eligible:
        return unmeasured(
            EVERY,
            "no poll could be answered 304: every poller's next poll followed a write "
            "(the plan's write interval is shorter than its cadence)",
        )
    share = sum(1 for p in eligible if p.status == 304) / len(eligible)
    if share >= limit:
        return passed(EVERY, received=f"{share:.1%} of {len(eligible)} polls that could be 304")
    return failed(
        EVERY,
        "unchanged snapshots answered 200 more often than declared",
        f"at least {limit:.0%} of the polls that could be answered 304 (the poller sent its "
        f"last hash, no write since) answered 304",
        f"{share:.1%} of {len(eligible)} such polls",
    )


def throughput(results: Results, declared: Declared) -> Finding:
    """In the whole seconds the fleet offered at least the declared rate, answers (any status
    but a 5xx or none) landed at that rate."""
    limit = declared.objectives.get("min_throughput")
    if limit is None:
        return _undeclared("POLL-DECLARED-THROUGHPUT")
    offered: dict[int, int] = defaultdict(int)
    answered: dict[int, int] = defaultdict(int)
    for p in results.polls:
        offered[int(p.sent - results.started)] += 1
        if 0 < p.status < 500:
            answered[int(p.sent + p.latency - results.started)] += 1
    whole = sorted(offered)[1:-1]  # the first and last seconds are partial
    busy = [s for s in whole if offered[s] >= limit]
    if not busy:
        peak = max((offered[s] for s in whole), default=0)
        return unmeasured(
            EVERY,
            f"the fleet never offered the declared {limit:g}/s in a whole second (peak "
            f"{peak}/s): raise load.fleet or lower load.cadence_seconds (the plan's shortfall)",
        )
    rate = sum(answered[s] for s in busy) / len(busy)
    if rate >= limit * THROUGHPUT_SLACK:
        return passed(EVERY, received=f"{rate:.1f}/s answered in {len(busy)} busy seconds")
    return failed(
        EVERY,
        "status polls answered under the declared throughput",
        f"at least {limit:g}/s answered (less {1 - THROUGHPUT_SLACK:.0%} for second edges) in "
        f"the {len(busy)} seconds the fleet offered that much",
        f"{rate:.1f}/s answered in those seconds",
    )


JUDGES = {
    "POLL-DECLARED-LATENCY": latency,
    "POLL-DECLARED-NOT-MODIFIED-SHARE": not_modified_share,
    "POLL-DECLARED-THROUGHPUT": throughput,
}


def summary_line(results: Results, declared: Declared) -> str:
    """The declared objectives as one line: none declared, or each met / missed / unmeasured."""
    parts = []
    for requirement, judge in JUDGES.items():
        found = judge(results, declared)
        if found.outcome is Outcome.NOT_CONFIGURED:
            continue
        name = requirement.removeprefix("POLL-DECLARED-").lower().replace("-", " ")
        said = {Outcome.PASS: f"met ({found.received})", Outcome.FAIL: f"missed ({found.received})"}
        parts.append(f"{name} " + said.get(found.outcome, f"not measured ({found.note})"))
    return "; ".join(parts) or "none declared (recorded only)"
