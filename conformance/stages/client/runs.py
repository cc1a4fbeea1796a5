"""Running the scenarios: every instance of every chosen scenario at once, against one scripted
server, each stopped when its script's time is up; what came back, per scenario.

Running them concurrently keeps the stage as short as its longest scenario; each instance's
clock starts at its own first request, so a slow start (a loaded machine) shortens nothing that
is judged. A stop signal (SIGINT, SIGTERM: ``KeyboardInterrupt``) ends the run early: every
client is stopped, the scenarios that had already ended are judged as usual, the others are
marked ``stopped``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from conformance.session import stop_signals
from conformance.stages.client.launcher import Launched, contract_env, launch
from conformance.stages.client.recording import Recorded
from conformance.stages.client.scenarios import Scenario
from conformance.stages.client.script import InstanceScript
from conformance.stages.client.server import ScriptedServer
from conformance.stages.client.settings import ClientSettings

STARTUP_ALLOWANCE_S = 20.0  # a client that has not polled by then never polls
TICK_S = 0.02


@dataclass
class InstanceRun:
    """One client instance: its script, its process and what the server recorded of it."""

    name: str
    instance_id: str
    script: InstanceScript
    url: str
    launched: Launched | None = None
    ended: float = 0.0  # run time the stage stopped it (or saw it gone)
    records: list[Recorded] = field(default_factory=list)

    def status_records(self) -> list[Recorded]:
        return [r for r in self.records if r.kind == "status"]


@dataclass
class ScenarioRun:
    """One scenario's instances after the run."""

    scenario: Scenario
    settings: ClientSettings
    instances: list[InstanceRun]
    seconds: float = 0.0  # wall time from launch to the last stop
    stopped: str = ""  # why it cannot be judged: a stop signal came before its end ("": ran out)

    def records(self) -> list[Recorded]:
        merged = [r for instance in self.instances for r in instance.records]
        return sorted(merged, key=lambda r: r.arrived)

    def problems(self) -> list[str]:
        """Why the client cannot be judged here: it did not run, ended early or never polled."""
        found = []
        for instance in self.instances:
            launched = instance.launched
            if launched is None:
                found.append(f"{instance.name}: not started")
                continue
            if launched.exited_early:
                found.append(
                    f"{instance.name}: exited on its own with status {launched.exit_status} "
                    f"before the scenario's end (after {len(instance.records)} request(s))"
                )
            elif not instance.status_records():
                found.append(f"{instance.name}: never polled {instance.script.scenario.name!r}")
        return found


def run_scenarios(
    settings: ClientSettings,
    scenarios: Sequence[Scenario],
    on_key: Callable[[str], None] | None = None,
) -> dict[str, ScenarioRun]:
    """Run every scenario's instances at once; returns each scenario's run. ``on_key`` learns
    the run's SDK key first (to redact it from every output)."""
    key = "svc_pk_" + secrets.token_hex(16)
    if on_key is not None:
        on_key(key)
    token = secrets.token_hex(3)
    server = ScriptedServer(settings, key)
    runs: dict[str, ScenarioRun] = {}
    for scenario in scenarios:
        instances = []
        for n in range(1, scenario.instances + 1):
            name = f"{scenario.name}#{n}"
            instance_id = f"cs-{token}-{scenario.name}-{n}"
            script = InstanceScript(scenario, name, instance_id, settings.time_scale)
            instances.append(InstanceRun(name, instance_id, script, server.add(script)))
        runs[scenario.name] = ScenarioRun(scenario, settings, instances)
    server.start()
    began = time.monotonic()
    everyone = [i for run in runs.values() for i in run.instances]
    stopping: list[threading.Thread] = []  # stops under way (a stop signal may come meanwhile)
    try:
        for instance in everyone:
            env = contract_env(
                settings, instance.url, key, instance.instance_id, instance.script.scenario.name
            )
            instance.launched = launch(settings, instance.name, env, key)
        _supervise(everyone, server, settings, stopping)
    except KeyboardInterrupt:  # a stop signal: keep the scenarios that had ended
        stop_signals.finishing()  # a further signal must not cut the stopping short
        stop = stop_signals.stopped()
        _cut(runs, server.app.now(), stop.name if stop is not None else "KeyboardInterrupt")
    finally:
        stoppers = [
            threading.Thread(target=i.launched.stop) for i in everyone if i.launched is not None
        ]
        for thread in stoppers:
            thread.start()
        for thread in [*stopping, *stoppers]:
            thread.join()
        server.stop()
    for run in runs.values():
        for instance in run.instances:
            instance.records = list(server.app.records.get(instance.name, []))
        run.seconds = round(
            max((i.ended for i in run.instances), default=0.0) - (began - server.started), 3
        )
    return runs


def _cut(runs: dict[str, ScenarioRun], now: float, signal_name: str) -> None:
    """Mark every scenario with an instance still running as stopped (its script not played to
    its end, so nothing of it is judged)."""
    for run in runs.values():
        cut = [i for i in run.instances if not i.ended]
        for instance in cut:
            instance.ended = now
        if cut:
            run.stopped = (
                f"the run was stopped by {signal_name} before the scenario's end "
                f"({len(cut)} of {len(run.instances)} instance(s) still running)"
            )


def _supervise(
    everyone: list[InstanceRun],
    server: ScriptedServer,
    settings: ClientSettings,
    stoppers: list[threading.Thread],
) -> None:
    """Stop each instance when its script's time is up (or it ended, or never polled); each stop
    runs in a thread of ``stoppers``."""
    waiting = list(everyone)
    while waiting:
        time.sleep(TICK_S)
        now = server.app.now()
        for instance in list(waiting):
            launched = instance.launched
            assert launched is not None
            script = instance.script
            age = time.monotonic() - launched.started
            due = script.first is not None and now - script.first >= settings.scaled(
                script.scenario.duration_s
            )
            if (
                due
                or not launched.running()
                or (script.first is None and age > STARTUP_ALLOWANCE_S)
            ):
                instance.ended = now
                waiting.remove(instance)
                thread = threading.Thread(target=launched.stop)
                thread.start()
                stoppers.append(thread)
    for thread in stoppers:
        thread.join()
