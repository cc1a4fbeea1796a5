"""Clean-up of the experiments a test created: terminated at the test's end, and by the session.

A ``Registry`` holds one test's experiments that may still be running; the driver terminates
them when the test ends (``Registry.terminate_all``). Each one also goes to the session's
``cleanup`` as a ``session_terminator``, the backstop for a test that never reached its end.
A terminate that is refused or unanswered decides no outcome (``terminate_quietly``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from conformance.drivers.call_options import Environment
from conformance.errors import ConformanceError
from conformance.profile import Profile
from conformance.traffic.client import Client
from conformance.traffic.pacing import Pacer


@dataclass
class Registry:
    """The experiments one test created that may still be running."""

    live: dict[int, Environment] = field(default_factory=dict)  # id -> environment

    def terminate_all(self, client: Client) -> None:
        for experiment_id, environment in list(self.live.items()):
            terminate_quietly(client, experiment_id, environment)
            self.live.pop(experiment_id, None)


def terminate_quietly(client: Client, experiment_id: int, environment: Environment) -> None:
    """Clean-up decides no outcome: a refused or unanswered terminate is left to the session's
    backstop (what the tests judged stands; the transcript keeps the exchange)."""
    with contextlib.suppress(ConformanceError):
        client.management(
            "POST",
            f"/experiments/{experiment_id}/terminate",
            environment=environment,
            json_body={},
        )


def session_terminator(
    base_url: str, profile: Profile, registry: Registry, experiment_id: int, pacer: Pacer
) -> Callable[[], None]:
    """A clean-up action for the session registry: terminate the experiment if still live
    (paced with the session's pacer, under the management limit like every other call)."""

    def action() -> None:
        environment = registry.live.pop(experiment_id, None)
        if environment is None:
            return
        with Client(base_url, profile, run_prefix="cf-cleanup", pacer=pacer) as http:
            terminate_quietly(http, experiment_id, environment)

    return action
