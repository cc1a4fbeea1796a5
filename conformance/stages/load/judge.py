"""The load stage's verdicts, pure functions of a run's records and the declared figures.

Each judge returns a ``Finding`` (``conformance.verdict.finding``) of ``EVERY`` requirement of the
test that reads it: pass, fail (what was expected, what was received), not measurable (only the
generator's own shortfall, with the figure) or not configured (the profile declares no figure to
judge against). What the target answered (no answer, a 5xx, a 429 a well-behaved instance did not
provoke) is always evidence, never an excuse.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from conformance.stages.load.plan import Plan
from conformance.stages.load.records import ANONYMOUS, NOISY, WELL_BEHAVED, Poll, Results
from conformance.stages.load.rules import OUTSIDE_UNIT, VALUES
from conformance.stages.load.series import Rate
from conformance.verdict.finding import EVERY, Finding, failed, passed, unconfigured, unmeasured
from conformance.verdict.outcome import Outcome

SHORTFALL = 0.8  # the generator offered less than this share of its plan: its own shortfall
HINT_SHARE = 0.8  # least share of 200s above the threshold band that must carry the hint
STRAY_HINT_SHARE = 0.1  # most share of 200s below the band (load gone) that may carry it
METER_SLOT = 0.1  # a service may count its window in slots: its view may miss this share of it
BUCKET_SLACK = 1.2  # a shared bucket may serve this much over burst + refill x span


@dataclass(frozen=True)
class Declared:
    """The target's declared figures the verdicts use (from the profile)."""

    burst: int
    refill: float
    threshold: float | None
    margin: float
    propagation_s: float
    objectives: dict[str, float | None] = field(default_factory=dict)
    window_s: float = 1.0  # the window the service counts its own rate over
    release: float | None = None  # hysteresis: shedding stops under it (None: the threshold)


def _example(poll: Poll, started: float) -> str:
    return f"instance {poll.instance} at t={poll.sent - started:.2f}s: HTTP {poll.status}" + (
        f" ({poll.problem})" if poll.problem else ""
    )


def no_server_error(results: Results, refusal: int = 429) -> Finding:
    """No 5xx and no missing answer, for polls and writes alike (``refusal``: the declared
    rate-limit refusal's status, errors.rate_limited_status, is a refusal even when a 5xx)."""
    bad = [p for p in results.polls if (p.status >= 500 and p.status != refusal) or p.status == 0]
    bad_writes = [w for w in results.writes if w.status >= 500 or w.status == 0]
    if not bad and not bad_writes:
        return passed(EVERY)
    example = _example(bad[0], results.started) if bad else f"write: {bad_writes[0].problem}"
    return failed(
        EVERY,
        "the service failed under the fleet's load",
        "no 5xx and an answer to every request",
        f"{len(bad)} of {len(results.polls)} polls and {len(bad_writes)} writes got a 5xx or no "
        f"answer; first: {example}",
    )


def error_bodies(
    results: Results, shape: bool, conventions: frozenset[str] = frozenset()
) -> Finding:
    """Every error answer's body well formed: JSON (``shape=False``: a JSON body, spec 4.3 r4)
    or an object with code and message (``shape=True``: the error shape's fields; a JSON body
    that is no object counts here, not against "a JSON body"). A body lacking only fields in
    ``conventions`` (names the profile leaves at their default) is not held against the target
    here (``departures`` lists it, a drop-in difference)."""
    words = ("lacks", "object") if shape else ("JSON", "Content-Type")
    bad = [
        p
        for p in results.polls
        if p.status >= 400
        and p.problem
        and any(w in p.problem for w in words)
        and not (shape and excused(p.problem, conventions))
    ]
    if not bad:
        return passed(EVERY)
    return failed(
        EVERY,
        "error answers under load are not well formed",
        "every error answer a JSON object with the declared code and message fields",
        f"{len(bad)} error answers malformed; first: {_example(bad[0], results.started)}",
    )


def departures(results: Results, conventions: frozenset[str]) -> list[Poll]:
    """Error answers lacking only fields whose names are conventions (``error_bodies``)."""
    return [
        p
        for p in results.polls
        if p.status >= 400 and p.problem and excused(p.problem, conventions)
    ]


def excused(problem: str, conventions: frozenset[str]) -> bool:
    """Whether ``problem`` is only the lack of fields whose names are conventions."""
    missing = lacking(problem)
    return bool(missing) and missing <= conventions


def lacking(problem: str) -> set[str]:
    """The fields an 'error body lacks string a, b' problem names (empty for another)."""
    prefix = "error body lacks string "
    return set(problem[len(prefix) :].split(", ")) if problem.startswith(prefix) else set()


def retry_after(results: Results, refusal: int = 429) -> Finding:
    limited = [p for p in results.polls if p.status == refusal]
    bare = [p for p in limited if p.retry_after is None]
    if not limited:
        return unmeasured(EVERY, "no 429 was answered during the run")
    if bare:
        return failed(
            EVERY,
            "429 without Retry-After",
            "every 429 carries Retry-After",
            f"{len(bare)} of {len(limited)} 429s had none; first: "
            f"{_example(bare[0], results.started)}",
        )
    return passed(EVERY)


def _noisy_offered(results: Results, plan: Plan, declared: Declared) -> tuple[int, float]:
    noisy = results.of_kind(NOISY)
    start, end = plan.noisy_window
    return len(noisy), declared.burst + declared.refill * (end - start)


def noisy_throttled(results: Results, plan: Plan, declared: Declared) -> Finding:
    """The noisy instances, far over the limit, were throttled (LIMIT-RATE-ENFORCED)."""
    offered, budget = _noisy_offered(results, plan, declared)
    limited = sum(1 for p in results.of_kind(NOISY) if p.status == plan.rate_limited_status)
    if limited:
        return passed(EVERY)
    if offered < budget * BUCKET_SLACK:
        return unmeasured(
            EVERY,
            f"the generator sent {offered} noisy polls, not over the declared budget "
            f"{budget:.0f} (burst + refill x phase) x {BUCKET_SLACK}: its own shortfall",
        )
    return failed(
        EVERY,
        "noisy instances far over the limit were never throttled",
        f"429 once one instance's polls pass burst + refill x time ({budget:.0f})",
        f"{offered} polls from {plan.noisy} noisy instance(s), none answered 429",
    )


def own_buckets(results: Results, plan: Plan, declared: Declared) -> Finding:
    """Well-behaved instances get no 429 while noisy ones are throttled in their own bucket."""
    well = [p for p in results.of_kind(WELL_BEHAVED) if p.status == plan.rate_limited_status]
    if well:
        instances = len({p.instance for p in well})
        return failed(
            EVERY,
            "well-behaved instances were rate-limited",
            "no 429 for an instance polling at its own cadence, far under the declared limit "
            f"({declared.refill:g}/s, burst {declared.burst})",
            f"{len(well)} 429s to {instances} well-behaved instance(s); first: "
            f"{_example(well[0], results.started)}",
        )
    return passed(EVERY)


def own_buckets_measured(results: Results, plan: Plan, declared: Declared) -> Finding:
    """LIMIT-RATE-PER-INSTANCE needs a drained bucket beside the fleet to mean anything."""
    found = own_buckets(results, plan, declared)
    if found.outcome is Outcome.FAIL:
        return found
    if not any(p.status == plan.rate_limited_status for p in results.of_kind(NOISY)):
        throttled = noisy_throttled(results, plan, declared)
        return throttled if throttled.outcome is not Outcome.PASS else found
    return found


def shared_bucket(results: Results, plan: Plan, declared: Declared) -> Finding:
    """Polls without an instance id, from one address, share one bucket."""
    by_host: dict[str, list[Poll]] = defaultdict(list)
    for poll in results.of_kind(ANONYMOUS):
        by_host[poll.host].append(poll)
    start, end = plan.anonymous_window
    budget = declared.burst + declared.refill * (end - start)
    if not by_host:
        return unmeasured(EVERY, "the generator sent no poll without an instance id")
    for host, polls in sorted(by_host.items()):
        served = sum(1 for p in polls if p.status in (200, 304))
        limited = sum(1 for p in polls if p.status == plan.rate_limited_status)
        pollers = len({p.instance for p in polls})
        if not limited and len(polls) < budget * BUCKET_SLACK:
            return unmeasured(
                EVERY,
                f"from {host} the generator sent {len(polls)} polls without an id, not over "
                f"the shared budget {budget:.0f} x {BUCKET_SLACK}: its own shortfall",
            )
        if served > budget * BUCKET_SLACK + 1:
            return failed(
                EVERY,
                "polls without an instance id do not share one bucket",
                f"at most burst + refill x {end - start:g}s = {budget:.0f} (x{BUCKET_SLACK}) "
                f"served to all pollers without an id from one address",
                f"{served} of {len(polls)} served ({limited} limited) to {pollers} pollers from "
                f"{host}, each under the limit alone",
            )
    return passed(EVERY)


def _hint_band(declared: Declared) -> tuple[float, float]:
    assert declared.threshold is not None
    return declared.threshold * (1 + declared.margin), declared.threshold * (1 - declared.margin)


def _not_declared() -> Finding:
    return unconfigured(
        EVERY, "load.shedding_threshold", "the profile declares no shedding threshold"
    )


def over_in_view(rate: Rate, at: float, high: float, window: float) -> bool:
    """Whether ``rate`` was over ``high`` at ``at`` in the service's view: over its whole window
    and over the window less its oldest ``METER_SLOT`` (a meter counting in slots leaves out the
    part of the oldest slot that has aged; a burst there is in one view and not in the other)."""
    return min(rate.trailing(at, window), rate.trailing(at, window * (1 - METER_SLOT))) > high


def hint_under_load(results: Results, plan: Plan, declared: Declared) -> Finding:
    """200s sent while the offered rate was over the band (and answered while the answered rate
    was too), in the service's own measuring window, carry the hint."""
    if declared.threshold is None:
        return _not_declared()
    high, _ = _hint_band(declared)
    window = declared.window_s
    rate, handled = Rate(results.polls), Rate(results.polls, answered=True)
    loaded = [
        p
        for p in results.polls
        if p.status == 200
        and over_in_view(rate, p.sent, high, window)
        and over_in_view(handled, p.sent + p.latency, high, window)
    ]
    if not loaded:
        planned = max(plan.herd_rate, plan.planned_rate)
        sent, answered = rate.peak(window), handled.peak(window)
        if sent > high and answered <= high:
            why = f"the target answered at most {answered:.0f}/s of it: its own slowness"
        elif planned > high:
            why = "the generator's shortfall"
        else:
            why = "the profile's fleet is too small to pass the band"
        return unmeasured(
            EVERY,
            f"the offered rate was never over {high:.0f}/s (threshold "
            f"{declared.threshold:g} + {declared.margin:.0%}) in the service's view with a 200 "
            f"answered: peak {sent:.0f}/s sent against {planned:.0f}/s planned ({why})",
        )
    share = sum(p.hint for p in loaded) / len(loaded)
    if share < HINT_SHARE:
        return failed(
            EVERY,
            "no polling hint while the offered load was over the declared threshold",
            f"polling in at least {HINT_SHARE:.0%} of 200s sent while the offered rate was over "
            f"{high:.0f}/s both in the {window:g}s and the {window * (1 - METER_SLOT):g}s before",
            f"{share:.0%} of {len(loaded)} such 200s carried it",
        )
    return passed(EVERY)


def _release_band(declared: Declared) -> float:
    """The rate under which shedding is over: the declared release threshold (hysteresis), else
    the shedding threshold, less the margin."""
    assert declared.threshold is not None
    release = declared.threshold if declared.release is None else declared.release
    return release * (1 - declared.margin)


def _quiet(results: Results, declared: Declared) -> list[Poll]:
    """200s sent after two of the service's windows in a row under the release band: the
    declared release condition (under it for a window) held, then a window to show it."""
    low, window = _release_band(declared), declared.window_s
    rate, handled = Rate(results.polls), Rate(results.polls, answered=True)
    return [
        p
        for p in results.polls
        if p.status == 200
        and max(rate.trailing(p.sent, window), rate.trailing(p.sent - window, window)) < low
        and max(handled.trailing(p.sent + p.latency, window), handled.trailing(p.sent, window))
        < low
    ]


def hint_absent_when_quiet(results: Results, declared: Declared, after: bool) -> Finding:
    """200s under the band carry no hint (``after``: only those after the first hint)."""
    if declared.threshold is None:
        return _not_declared()
    quiet = _quiet(results, declared)
    first = next((p.sent for p in results.polls if p.hint), None)
    if after:
        if first is None:
            return unmeasured(EVERY, "no polling hint was ever served, none to go")
        quiet = [p for p in quiet if p.sent > first]
    if not quiet:
        return unmeasured(EVERY, "no 200 was served while the offered load was low")
    share = sum(p.hint for p in quiet) / len(quiet)
    if share > STRAY_HINT_SHARE:
        low, window = _release_band(declared), declared.window_s
        return failed(
            EVERY,
            "the polling hint stays while the offered load is low",
            f"no polling in 200s sent after {2 * window:g} s under {low:.0f}/s (at most "
            f"{STRAY_HINT_SHARE:.0%})",
            f"{share:.0%} of {len(quiet)} such 200s carried it",
        )
    return passed(EVERY)


USABLE = "POLL-HINT-VALUES-USABLE"
JITTER_RANGE = "POLL-HINT-JITTER-RATIO-RANGE"


def hint_shape(results: Results) -> list[Finding]:
    """POLL-HINT-VALUES-USABLE (numbers, intervalSeconds > 0) and, apart, the convention
    POLL-HINT-JITTER-RATIO-RANGE (jitterRatio in [0, 1]): one finding each."""
    hinted = [p for p in results.polls if p.status == 200 and p.problem.startswith("polling")]
    unusable = [
        p for p in hinted if not p.problem.startswith(VALUES) or "intervalSeconds=" in p.problem
    ]
    out_of_range = [p for p in hinted if OUTSIDE_UNIT in p.problem]
    if not any(p.hint for p in results.polls) and not hinted:
        return [
            unmeasured(USABLE, "no polling hint was served"),
            unmeasured(JITTER_RANGE, "no polling hint was served"),
        ]
    return [
        failed(
            USABLE,
            "polling hint not usable",
            "polling {intervalSeconds > 0, jitterRatio}: numbers",
            f"{len(unusable)} hints malformed; first: {_example(unusable[0], results.started)}",
        )
        if unusable
        else passed(USABLE),
        failed(
            JITTER_RANGE,
            "polling hint's jitterRatio outside [0, 1]",
            "polling jitterRatio from 0 to 1 (the production convention)",
            f"{len(out_of_range)} hints; first: {_example(out_of_range[0], results.started)}",
        )
        if out_of_range
        else passed(JITTER_RANGE),
    ]


def convergence_bound(plan: Plan) -> float:
    """Seconds from the first hint until the fleet obeys and the hint is gone: every instance
    learns the hint by its next 200 (one cadence with jitter, or the next write), then two
    windows of low load."""
    write = plan.write_interval_s or 0.0
    return plan.cadence_s * (1 + plan.jitter_ratio) + write + 2.0


def convergence(results: Results, plan: Plan, declared: Declared) -> tuple[Finding, float | None]:
    """With the fleet obeying, the offered rate falls under the band and the hint goes away
    within ``convergence_bound``; the seconds it took (None: never)."""
    if declared.threshold is None:
        return _not_declared(), None
    first = next((p.sent for p in results.polls if p.hint), None)
    if first is None:
        return unmeasured(EVERY, "no polling hint was served"), None
    quiet = [p for p in _quiet(results, declared) if p.sent > first and not p.hint]
    bound = convergence_bound(plan)
    took = (quiet[0].sent - first) if quiet else None
    if took is not None and took <= bound:
        return passed(EVERY), took
    last = max(p.sent for p in results.polls)
    if took is None and last - first < bound:
        return unmeasured(EVERY, "the run ended within the bound of the first hint"), None
    return failed(
        EVERY,
        "the polling hint did not go away with the fleet obeying it",
        f"a 200 without polling, under the band, within {bound:.1f}s of the first hint",
        "none by the end of the run" if took is None else f"the first after {took:.1f}s",
    ), took


def write_visible(results: Results, plan: Plan, declared: Declared) -> Finding:
    """Every poll sent after a write (plus the declared propagation) sees the new hash."""
    writes = [w for w in results.writes if w.status == 200 and w.content_hash]
    if not writes:
        return unmeasured(EVERY, "no write succeeded during the run")
    generation = {results.initial_hash: 0} if results.initial_hash else {}
    for index, write in enumerate(writes, start=1):
        generation.setdefault(write.content_hash, index)
    seen = [p for p in results.polls if p.status in (200, 304) and p.config_hash]
    known = [p for p in seen if p.config_hash in generation]
    if seen and len(known) < len(seen) / 2:
        return unmeasured(
            EVERY,
            "the snapshot's configuration hashes are not the records' contentHash: "
            "writes cannot be told apart",
        )
    # The configuration existed before the fleet started: an answer without it is older still.
    generation[""] = -1
    known += [p for p in results.polls if p.status in (200, 304) and not p.config_hash]
    done = [w.done + declared.propagation_s for w in writes]
    stale = []
    for poll in known:
        due = sum(1 for t in done if t < poll.sent)  # writes every later poll must show
        if generation[poll.config_hash] < due:
            stale.append(poll)
    if stale:
        lag = max(p.sent - done[max(0, generation[p.config_hash])] for p in stale)
        return failed(
            EVERY,
            "polls after a write still saw the previous configuration",
            f"every poll sent over {declared.propagation_s:g}s after a write's answer shows "
            "its hash (so each instance has it within one cadence, plus the hint while held)",
            f"{len(stale)} of {len(known)} polls, from "
            f"{len({p.instance for p in stale})} instance(s), stale up to {lag:.1f}s after the "
            f"write; first: {_example(stale[0], results.started)}",
        )
    return passed(EVERY)
