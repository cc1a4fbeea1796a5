"""Synthetic recordings for the judges' tests: an instance's polls at chosen times with chosen
answers, as the scripted server would have recorded them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import InstanceRun, ScenarioRun
from conformance.stages.client.scenarios import by_name
from conformance.stages.client.script import InstanceScript
from conformance.stages.client.settings import ClientSettings, settings_from

SETTINGS = settings_from("client", None)


def settings(**changes: Any) -> ClientSettings:
    return dataclasses.replace(SETTINGS, **changes)


def poll(at: float, status: int | None = 304, **fields: Any) -> dict[str, Any]:
    return {"arrived": at, "status": status, "kind": "status", **fields}


def refetch(at: float, path: str = "/sdk/v2/bootstrap", **fields: Any) -> dict[str, Any]:
    return {"arrived": at, "status": 200, "kind": "refetch", "path": path, **fields}


def instance(
    name: str, scenario: str, events: Sequence[dict[str, Any]], ended: float
) -> InstanceRun:
    script = InstanceScript(by_name()[scenario], name, f"id-{name}", SETTINGS.time_scale)
    run = InstanceRun(name, f"id-{name}", script, "http://127.0.0.1:9", ended=ended)
    for seq, event in enumerate(events, start=1):
        fields = dict(event)
        headers = {"server-id": f"id-{name}", **fields.pop("headers", {})}
        record = Recorded(
            instance=name,
            seq=seq,
            method="GET",
            path=fields.pop("path", "/sdk/v2/status"),
            query=fields.pop("query", {}),
            headers=headers,
            arrived=fields.pop("arrived"),
            kind=fields.pop("kind"),
        )
        record.answered = record.arrived + 0.002
        for key, value in fields.items():
            setattr(record, key, value)
        run.records.append(record)
    return run


def scenario_run(
    scenario: str, instances: Sequence[InstanceRun], client: ClientSettings = SETTINGS
) -> ScenarioRun:
    return ScenarioRun(by_name()[scenario], client, list(instances))


def every(start: float, waits: Sequence[float]) -> list[float]:
    """Arrival times: ``start``, then one after each wait."""
    times = [start]
    for wait in waits:
        times.append(times[-1] + wait)
    return times
