"""Which judge reads which scenario (``Scenario.judges`` names them), and a scenario's findings
and drop-in differences:
a client that did not run, ended early or never polled fails every id of the scenario, with its
output as the evidence."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from conformance.stages.client.dropin import Judged
from conformance.stages.client.judge_failures import judge_backoff, judge_retry_after
from conformance.stages.client.judge_hash import judge_last_hash
from conformance.stages.client.judge_headers import judge_headers
from conformance.stages.client.judge_hint import judge_hint, judge_jitter, judge_release
from conformance.stages.client.judge_refetch import judge_refetch
from conformance.stages.client.runs import ScenarioRun
from conformance.verdict.finding import failed

JUDGES: dict[str, Callable[[ScenarioRun], Sequence[Judged]]] = {
    "last-hash": judge_last_hash,
    "headers": judge_headers,
    "hint": judge_hint,
    "hint-jitter": judge_jitter,
    "hint-release": judge_release,
    "refetch": judge_refetch,
    "retry-after": judge_retry_after,
    "backoff": judge_backoff,
}


def judge(run: ScenarioRun) -> list[Judged]:
    """Every finding of one scenario's run, and its drop-in differences (``dropin.split``)."""
    problems = run.problems()
    if problems:
        output = "\n".join(
            f"--- {i.name} (exit status {i.launched.exit_status}):\n{i.launched.tail()}"
            for i in run.instances
            if i.launched is not None
        )
        return [
            failed(
                rid,
                "the client did not take part in the scenario",
                "each instance runs and polls until the stage stops it",
                "; ".join(problems) + "\n" + output,
            )
            for rid in run.scenario.requirement_ids
        ]
    findings: list[Judged] = []
    for name in run.scenario.judges:
        findings.extend(JUDGES[name](run))
    return findings
