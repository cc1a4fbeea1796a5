"""The load stage's details (plan, figures, per-second series, convergence) and how they read in
every report format (``describe``); the HTML charts are ``charts``."""

from __future__ import annotations

from collections.abc import Mapping

from conformance.stages.load import judge
from conformance.stages.load.objectives import summary_line
from conformance.stages.load.plan import Plan
from conformance.stages.load.records import Results
from conformance.stages.load.series import figures, per_second


def details_of(plan: Plan, declared: judge.Declared, results: Results) -> dict[str, object]:
    """What the reports keep of a run: no credentials, no instance ids but counts."""
    _, took = judge.convergence(results, plan, declared)
    public = plan.public()
    return {
        "plan": {
            key: public[key]
            for key in (
                "fleet",
                "cadence_s",
                "jitter_ratio",
                "run_s",
                "ramp_s",
                "write_interval_s",
                "noisy",
                "noisy_rate",
                "anonymous",
                "anonymous_rate",
            )
        },
        "planned_rps": round(plan.planned_rate, 1),
        "threshold": declared.threshold,
        "convergence_bound_s": round(judge.convergence_bound(plan), 1),
        "convergence_s": None if took is None else round(took, 2),
        "figures": figures(results),
        "objectives": summary_line(results, declared),
        "series": per_second(results),
        **({"stopped": note} if (note := results.stop_note(plan.run_s)) else {}),
    }


def describe(details: Mapping[str, object]) -> list[str]:
    """Short lines for the text, Markdown, JUnit and JSON summaries."""
    plan = _mapping(details.get("plan"))
    f = _mapping(details.get("figures"))
    if not f:
        return ["no fleet ran"]
    statuses = ", ".join(f"{k}: {v}" for k, v in _mapping(f.get("statuses")).items())
    took = details.get("convergence_s")
    stopped = [f"partial: {details['stopped']}"] if details.get("stopped") else []
    return [
        *stopped,
        f"fleet {plan.get('fleet')} instances at {plan.get('cadence_s')}s cadence "
        f"({details.get('planned_rps')}/s planned), {plan.get('noisy')} noisy, "
        f"{plan.get('anonymous')} without id, a write every {plan.get('write_interval_s')}s; "
        f"{f.get('workers')} Locust worker(s)",
        f"{f.get('polls')} polls in {f.get('span_s')}s: {f.get('throughput_rps')}/s answered, "
        f"peak {f.get('peak_rps')}/s offered; {statuses}",
        f"latency p50 {f.get('latency_p50_ms')} ms, p95 {f.get('latency_p95_ms')} ms, p99 "
        f"{f.get('latency_p99_ms')} ms; 304 share {f.get('not_modified_share')}",
        f"generator timing error p50 {f.get('timing_error_p50_ms')} ms, p99 "
        f"{f.get('timing_error_p99_ms')} ms",
        f"hint threshold {details.get('threshold')}/s; hint gone "
        + ("never" if took is None else f"{took}s")
        + f" after it first appeared (bound {details.get('convergence_bound_s')}s)",
        f"declared objectives: {details.get('objectives', 'none declared (recorded only)')}",
    ]


def _mapping(value: object) -> Mapping[str, object]:
    """A table of the details (nothing recorded: empty)."""
    if not isinstance(value, Mapping):
        return {}
    return {str(key): item for key, item in value.items()}
