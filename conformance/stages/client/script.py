"""One client instance's place in its scenario's script: which step answers the next status
request, and the snapshot it holds (what a refetch is served from)."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.stages.client.scenarios import Scenario, Snapshot, Step


@dataclass
class InstanceScript:
    """Steps advance by status requests counted or by time since the instance's first request."""

    scenario: Scenario
    name: str  # "<scenario>#<n>"
    instance_id: str  # what RCES_INSTANCE_ID says
    time_scale: float
    first: float | None = None  # run time of the first request
    step_index: int = 0
    in_step: int = 0  # status requests answered by the current step
    served: Snapshot | None = None  # the snapshot of the last status 200 or 304
    held: Snapshot | None = None  # the snapshot of the last status 200 (what the client holds)
    requests: int = 0

    def saw_request(self, now: float) -> int:
        """Count a request (any kind); returns its sequence number."""
        if self.first is None:
            self.first = now
        self.requests += 1
        return self.requests

    def elapsed_nominal(self, now: float) -> float:
        return 0.0 if self.first is None else (now - self.first) / self.time_scale

    def take_step(self, now: float) -> tuple[int, Step]:
        """The step that answers a status request arriving at ``now`` (counted in it)."""
        steps = self.scenario.steps
        while self.step_index < len(steps) - 1 and self._done(steps[self.step_index], now):
            self.step_index += 1
            self.in_step = 0
        self.in_step += 1
        return self.step_index, steps[self.step_index]

    def peek_step(self, now: float) -> Step:
        """The step a status request arriving at ``now`` would take (nothing counted)."""
        steps = self.scenario.steps
        index, count = self.step_index, self.in_step
        while index < len(steps) - 1 and self._done(steps[index], now, count):
            index, count = index + 1, 0
        return steps[index]

    def _done(self, step: Step, now: float, count: int | None = None) -> bool:
        count = self.in_step if count is None else count
        if step.polls:
            return count >= step.polls
        return self.elapsed_nominal(now) >= step.until_s

    def snapshot_of(self, step: Step) -> Snapshot:
        return self.scenario.snapshots[step.snapshot]
