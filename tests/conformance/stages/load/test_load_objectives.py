"""The declared objectives (``objectives``), on made-up records: each is not configured until
declared, passes a target that meets it, fails one that misses it, and leaves it unmeasured only
for the generator's own shortfall, with the figure."""

from __future__ import annotations

from conformance.stages.load import objectives
from conformance.stages.load.judge import Declared
from conformance.stages.load.records import WELL_BEHAVED, Poll, Results, Write
from conformance.verdict.outcome import Outcome

FAIL, NOT_CONFIGURED, NOT_MEASURABLE, PASS = (
    Outcome.FAIL,
    Outcome.NOT_CONFIGURED,
    Outcome.NOT_MEASURABLE,
    Outcome.PASS,
)

T0 = 1_000_000.0


def declared(**figures: float) -> Declared:
    return Declared(60, 30.0, 150.0, 0.25, 1.0, dict(figures))


def poll(
    at: float, status: int = 304, who: str = "i1", latency: float = 0.01, lag: float = 0.0
) -> Poll:
    return Poll(T0 + at - lag, T0 + at, latency, status, WELL_BEHAVED, who, "", 0, "", None, "h")


def run(polls: list[Poll], writes: list[Write] | None = None) -> Results:
    return Results(started=T0, polls=sorted(polls), writes=writes or [])


def test_nothing_declared_is_not_configured_with_the_key_to_set() -> None:
    results = run([poll(1)])
    for requirement, judge in objectives.JUDGES.items():
        found = judge(results, declared())
        assert found.outcome == NOT_CONFIGURED, requirement
        assert (
            found.key.startswith("load.")
            and found.key.removeprefix("load.") in objectives.KEYS[requirement]
        )
    assert objectives.summary_line(results, declared()) == "none declared (recorded only)"


def test_latency_over_the_declared_p99_fails_and_an_unanswered_poll_counts_as_slowest() -> None:
    fast = [poll(i / 100, latency=0.02) for i in range(1000)]
    assert objectives.latency(run(fast), declared(latency_p99_ms=50)).outcome == PASS
    slow = [poll(i / 100, latency=0.02 if i % 10 else 0.3) for i in range(1000)]
    found = objectives.latency(run(slow), declared(latency_p99_ms=50, latency_p50_ms=30))
    assert (
        found.outcome == FAIL and "p99 300.0 ms" in found.received and "p50" not in found.received
    )
    dropped = [*fast[:985], *(poll(20 + i / 100, status=0) for i in range(15))]
    found = objectives.latency(run(dropped), declared(latency_p99_ms=50))
    assert found.outcome == FAIL and "never answered" in found.received


def test_latency_is_read_on_polls_sent_on_time_and_unmeasured_when_too_few_were() -> None:
    lagging = [poll(i / 100, latency=0.3, lag=0.2 if i % 3 else 0.0) for i in range(1000)]
    found = objectives.latency(run(lagging), declared(latency_p99_ms=50))
    assert found.outcome == NOT_MEASURABLE and "only 334 of 1000 polls" in found.note
    late_reads = [
        poll(i / 100, latency=0.3 if i % 4 == 0 else 0.02, lag=0.2 if i % 4 == 0 else 0.0)
        for i in range(1000)
    ]
    assert objectives.latency(run(late_reads), declared(latency_p99_ms=50)).outcome == PASS
    slow = [poll(i / 100, latency=0.3, lag=0.2 if i % 4 == 0 else 0.0) for i in range(1000)]
    found = objectives.latency(run(slow), declared(latency_p99_ms=50))
    assert found.outcome == FAIL and "over 750 of 1000 polls" in found.received


def test_the_304_share_counts_only_polls_that_could_be_304() -> None:
    writes = [Write(T0 + 10, T0 + 10.1, 200, "h1", "")]
    polls = [poll(t, status=200 if t in (0, 11) else 304, who=w) for w in "ab" for t in range(20)]
    results = run(polls, writes)  # the 200s: first polls, and the polls right after the write
    assert (
        objectives.not_modified_share(results, declared(min_not_modified_share=0.99)).outcome
        == PASS
    )
    half = [poll(t, status=200 if t % 2 or t == 0 else 304, who="c") for t in range(20)]
    found = objectives.not_modified_share(run(half), declared(min_not_modified_share=0.9))
    assert found.outcome == FAIL and "of 19 such polls" in found.received
    busy = [Write(T0 + t + 0.5, T0 + t + 0.6, 200, f"h{t}", "") for t in range(20)]
    found = objectives.not_modified_share(run(polls, busy), declared(min_not_modified_share=0.9))
    assert found.outcome == NOT_MEASURABLE and "write" in found.note


def test_throughput_is_judged_in_the_seconds_the_fleet_offered_it() -> None:
    offered = [poll(i / 200, latency=0.005) for i in range(2000)]  # 200/s for 10 s
    assert objectives.throughput(run(offered), declared(min_throughput=150)).outcome == PASS
    queued = [poll(i / 200, latency=i / 200 * 0.6) for i in range(2000)]  # answers fall behind
    found = objectives.throughput(run(queued), declared(min_throughput=150))
    assert found.outcome == FAIL and "/s answered in those seconds" in found.received
    refused = [poll(i / 200, status=503 if i % 3 == 0 else 304) for i in range(2000)]
    assert objectives.throughput(run(refused), declared(min_throughput=150)).outcome == FAIL
    found = objectives.throughput(run(offered), declared(min_throughput=500))
    assert found.outcome == NOT_MEASURABLE and "peak 200/s" in found.note


def test_the_summary_line_names_each_declared_objective() -> None:
    line = objectives.summary_line(
        run([poll(i / 100) for i in range(1000)]), declared(latency_p99_ms=5)
    )
    assert line.startswith("latency missed (p99 10.0 ms") and "share" not in line
