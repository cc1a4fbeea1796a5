"""Figures over a run: the offered rate in any trailing window, and per-second series (requests/s,
p50/p99 latency, hint share, 429s of well-behaved and noisy instances) for reports and charts.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from conformance.stages.load.records import NOISY, WELL_BEHAVED, Poll, Results


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))
    return ordered[rank]


class Rate:
    """Polls sent (or answered, ``answered=True``) in a trailing window, from the sorted times
    of every poll of the run. A service behind a queue counts what it handles, close to when it
    answers: the hint rules hold a rate as high (or low) only when both views agree."""

    def __init__(self, polls: Sequence[Poll], answered: bool = False) -> None:
        self.times = sorted(p.sent + (p.latency if answered else 0.0) for p in polls)

    def trailing(self, at: float, window: float = 1.0) -> float:
        """Polls per second sent in ``(at - window, at]``."""
        low = bisect.bisect_right(self.times, at - window)
        high = bisect.bisect_right(self.times, at)
        return (high - low) / window

    def peak(self, window: float = 1.0) -> float:
        return max((self.trailing(t, window) for t in self.times), default=0.0)


def per_second(results: Results) -> list[dict[str, float | None]]:
    """One row per second of the run: requests/s, p50/p99 ms, hint share of 200s, 429s by kind."""
    rows: dict[int, list[Poll]] = {}
    for poll in results.polls:
        rows.setdefault(int(poll.sent - results.started), []).append(poll)
    series: list[dict[str, float | None]] = []
    for second in range(min(rows, default=0), max(rows, default=-1) + 1):
        polls = rows.get(second, [])
        latencies = [p.latency * 1000 for p in polls if p.status]
        ok = [p for p in polls if p.status == 200]
        series.append(
            {
                "t": second,
                "rps": len(polls),
                "p50_ms": round(percentile(latencies, 0.5), 2),
                "p99_ms": round(percentile(latencies, 0.99), 2),
                "hint_share": round(sum(p.hint for p in ok) / len(ok), 3) if ok else None,
                "r429_well": sum(1 for p in polls if p.status == 429 and p.kind == WELL_BEHAVED),
                "r429_noisy": sum(1 for p in polls if p.status == 429 and p.kind == NOISY),
                "r429_other": sum(
                    1 for p in polls if p.status == 429 and p.kind not in (WELL_BEHAVED, NOISY)
                ),
            }
        )
    return series


def figures(results: Results) -> dict[str, object]:
    """The run's recorded figures: sizes, rates, latency, 304 share, the generator's own lag."""
    polls = results.polls
    answered = [p for p in polls if p.status]
    latencies = [p.latency * 1000 for p in answered]
    lags = [max(0.0, p.sent - p.planned) * 1000 for p in polls]
    span = (max(p.sent for p in polls) - min(p.sent for p in polls)) if polls else 0.0
    statuses: dict[str, int] = {}
    for poll in polls:
        statuses[str(poll.status)] = statuses.get(str(poll.status), 0) + 1
    conditional = sum(1 for p in polls if p.status in (200, 304))
    cpu = {
        name: round(float(w.get("cpu", 0.0)) - float(w.get("first_cpu", 0.0)), 3)
        for name, w in results.workers.items()
    }
    return {
        "polls": len(polls),
        "writes": len(results.writes),
        "instances": len({p.instance for p in polls if p.kind == WELL_BEHAVED}),
        "span_s": round(span, 2),
        "throughput_rps": round(len(answered) / span, 1) if span else 0.0,
        "peak_rps": round(Rate(polls).peak(), 1),
        "latency_p50_ms": round(percentile(latencies, 0.5), 2),
        "latency_p95_ms": round(percentile(latencies, 0.95), 2),
        "latency_p99_ms": round(percentile(latencies, 0.99), 2),
        "not_modified_share": round(statuses.get("304", 0) / conditional, 3) if conditional else 0,
        "statuses": dict(sorted(statuses.items())),
        "timing_error_p50_ms": round(percentile(lags, 0.5), 2),
        "timing_error_p99_ms": round(percentile(lags, 0.99), 2),
        "workers": len(results.workers),
        "worker_cpu_s": cpu,
        "worker_polls": {name: int(w.get("sent", 0)) for name, w in results.workers.items()},
    }
