"""What the reports show of a scenario's run: the recorded request timeline (as text and as the
evidence's exchanges) and, for timing scenarios, the intervals each instance kept against the
intervals its answers asked for. Plain JSON: it travels as a stage property."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import ScenarioRun
from conformance.stages.client.timeline import gaps, hint_bound
from conformance.verdict.evidence import Exchange

TIMELINE_LINES = 80
EXCHANGES = 6


class Interval(TypedDict):
    """One closed wait of an instance: when it ended, how long it was, what was asked."""

    instance: str
    at: float  # seconds into the run
    kept: float
    asked: float | None  # the shortest wait the answer before it allowed (None: nothing asked)
    why: str  # cadence, hint, retry-after, backoff, ...
    after: str  # the answer's status, "reset", or "refused" (no request read)


class ScenarioDetails(TypedDict):
    """One scenario's entry in the stage details (``scenarios`` by name)."""

    title: str
    requirements: list[str]
    instances: int
    requests: int
    seconds: float
    timeline: list[str]
    intervals: NotRequired[list[Interval]]  # timing scenarios
    stopped: NotRequired[str]  # why it was not judged


def scenario_details(run: ScenarioRun) -> ScenarioDetails:
    """One scenario's entry in the stage details."""
    transport = run.settings.hash_transport
    records = run.records()
    lines = [r.line(transport) for r in records]
    details: ScenarioDetails = {
        "title": run.scenario.title,
        "requirements": list(run.scenario.requirement_ids),
        "instances": len(run.instances),
        "requests": len(records),
        "seconds": run.seconds,  # from the launch of every scenario to this one's last stop
        "timeline": lines[:TIMELINE_LINES] + (["..."] if len(lines) > TIMELINE_LINES else []),
    }
    if run.scenario.timing:
        details["intervals"] = intervals(run)
    if run.stopped:
        details["stopped"] = run.stopped
    return details


def intervals(run: ScenarioRun) -> list[Interval]:
    """Each closed wait: instance, when, kept, what the answer before it asked (None: nothing)."""
    reading = run.settings.jitter_reading
    found: list[Interval] = []
    for instance in run.instances:
        for gap in gaps(instance):
            if gap.open:
                continue
            record = gap.after
            asked: float | None = None
            why = "cadence"
            if gap.hinted and gap.hint is not None:
                asked = hint_bound(gap.hint[0], gap.hint[1], reading)
                why = "hint" if record.status == 200 else "hint held through a 304"
            elif record.retry_after_s is not None:
                asked, why = record.retry_after_s, "retry-after"
            elif gap.failed:
                why = "backoff" if record.read else "backoff after a refused connection"
            found.append(
                {
                    "instance": instance.name,
                    "at": round(record.arrived, 3),
                    "kept": round(gap.seconds, 3),
                    "asked": None if asked is None else round(asked, 3),
                    "why": why,
                    "after": "refused" if not record.read else str(record.status or "reset"),
                }
            )
    return found


def read_intervals(value: object) -> list[Interval]:
    """The ``intervals`` of a scenario's details as read back from JSON (a malformed entry is
    left out)."""
    found: list[Interval] = []
    for item in value if isinstance(value, list) else ():
        if not isinstance(item, dict):
            continue
        at, kept, asked = item.get("at"), item.get("kept"), item.get("asked")
        if not isinstance(at, int | float) or not isinstance(kept, int | float):
            continue
        found.append(
            {
                "instance": str(item.get("instance")),
                "at": at,
                "kept": kept,
                "asked": asked if isinstance(asked, int | float) else None,
                "why": str(item.get("why", "")),
                "after": str(item.get("after", "")),
            }
        )
    return found


class Timeline:
    """The recorded requests as a transcript the plugin attaches to a failing test's evidence
    (``exchanges``) and to its terminal report (``render``)."""

    def __init__(self, run: ScenarioRun) -> None:
        self.run = run
        self.exchanges = tuple(_exchange(run, r) for r in run.records())

    def render(self) -> str:
        return "\n".join(r.line(self.run.settings.hash_transport) for r in self.run.records())


def _exchange(run: ScenarioRun, record: Recorded) -> Exchange:
    if not record.read:
        return Exchange(
            method="-",
            url=record.attempt,
            request_headers={},
            request_body=None,
            status=None,
            response_headers={},
            response_body=None,
            elapsed_ms=0.0,
        )
    url = record.path + (
        "?" + "&".join(f"{k}={v}" for k, v in record.query.items()) if record.query else ""
    )
    return Exchange(
        method=record.method,
        url=url,
        request_headers=dict(record.headers),
        request_body=None,
        status=record.status,
        response_headers={},
        response_body=record.answer(),
        elapsed_ms=round(1000 * max(0.0, record.answered - record.arrived), 3),
    )
