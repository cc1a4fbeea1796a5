"""The one hand-over of a run's target: resolved, its profile read and its pre-flight passed once,
in the process that starts the run, and handed to every pytest process of it.

Whoever starts the run establishes the target once: ``conformance run`` before pytest starts
(``HandedOver``, a plugin object that carries it in), plain ``pytest`` at the session start of
its controller when the run collects a stage that judges a server (``Handover.at_session_start``).
Every xdist worker receives it through its ``workerinput`` (the profile as it was read, not its
file) and derives nothing again: no second resolve, pre-flight or profile parse.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.catalogue.requirements import load_catalogue
from conformance.drivers import observation
from conformance.errors import UsageError
from conformance.profile import Profile
from conformance.registry import Stage, answered_by, collected_by, default_answered
from conformance.run import requirement_ids
from conformance.session.state import (
    HANDED_OVER,
    SECRETS,
    TARGET_INFO,
    add_secrets,
    target_info,
    target_of,
)
from conformance.target.resolution import Target, establish
from conformance.verdict.difference import Difference

WORKERINPUT_KEY = "conformance_target"
OBSERVATION_TEST_ID = "observation before the tests: the target's own payload names"


@dataclass(eq=False)  # a plugin object: hashable by identity
class HandedOver:
    """Registered as a plugin by the command that established the target: pytest's controller
    takes it from here."""

    target: Target

    def __repr__(self) -> str:  # pytest may print its plugins before redaction is in place
        return f"HandedOver({self.target.base_url})"


def receive(config: pytest.Config) -> None:
    """At configure: the target handed to this process, by the command that started the run or,
    in an xdist worker, by the controller."""
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, HandedOver):
            _keep(config, plugin.target)
            return
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKERINPUT_KEY in workerinput:
        _keep(config, _unpacked(workerinput[WORKERINPUT_KEY]))


def at_session_start(session: pytest.Session) -> Target | None:
    """Plain pytest's controller: establish the target once when the run needs one (it names a
    target, or runs the tests of a stage that judges a server; collecting them alone starts no
    embedded server) and none was handed over; a wrong URL or profile ends the run as one usage
    error, as is a ``--requirements`` id none of the collected stages answers for. The caller
    stops what this returns."""
    config = session.config
    if hasattr(config, "workerinput"):
        return None
    stages = collected_by(config.args, config.invocation_params.dir)
    try:
        requirement_ids.check(config.getoption("requirements", None), stages)
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    if target_of(config) is not None:
        return None
    base_url = config.getoption("base_url", None)
    profile_path = config.getoption("target_profile", None)
    if stages and all(stage.subject != "server" for stage in stages):
        return None
    named = bool(base_url or profile_path)
    if not named and (not stages or config.option.collectonly):
        return None  # nothing to certify yet: an embedded server waits for a test that runs
    try:
        target = establish(base_url, profile_path)
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    observe(target, stages, config.getoption("requirements", None))
    _keep(config, target)
    return target


def observe(target: Target, stages: Sequence[Stage], requirements: str | None) -> None:
    """Before the tests: the payload names the profile leaves to convention, as the target
    spells them (``conformance.drivers.observation``), when the run judges a requirement resting
    on one: the target's spellings go into its profile, each departure into ``observed``."""
    wanted = set(requirement_ids.given(requirements))
    resting = _resting_on_observed()
    judged = wanted or answered_by(stage.name for stage in stages) or default_answered()
    if not judged & set().union(*resting.values()):
        return  # no requirement of the run reads an observed name (the load stage alone)
    target.profile, choices = observation.observe(target.base_url, target.profile)
    target.observed = tuple(
        Difference(
            requirement_ids=tuple(sorted(resting.get(choice.key, ()))),
            key=choice.key,
            convention=str(choice.convention),
            received=f"{choice.value!r} ({choice.how})",
            title="the target's own spelling, observed before the tests and judged in it",
            test_id=OBSERVATION_TEST_ID,
            curl=choice.curl,
        )
        for choice in choices
    )


def _resting_on_observed() -> dict[str, set[str]]:
    """The checkable requirements resting on each observed key."""
    found: dict[str, set[str]] = {key: set() for key in observation.OBSERVED_KEYS}
    for requirement in load_catalogue():
        for key in found:
            if any(k == key or key.startswith(k + ".") for k in requirement.keys):
                found[key].add(requirement.id)
    return found


def on_demand(config: pytest.Config) -> tuple[Target, bool]:
    """The ``target`` fixture's target: the one handed over, else established now (a user's own
    tests run without a stage, in this process only); True when the caller must stop it."""
    target = target_of(config)
    if target is not None:
        return target, False
    try:
        target = establish(config.getoption("base_url", None), config.getoption("target_profile"))
    except UsageError as error:
        pytest.exit(f"conformance usage error: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    _keep(config, target)
    return target, True


def packed(config: pytest.Config) -> bytes | None:
    """What an xdist worker receives of this process's target (None: none yet)."""
    target = target_of(config)
    if target is None:
        return None
    return pickle.dumps(
        (
            target.base_url,
            target.profile,
            str(target.profile_path) if target.profile_path else None,
            target.embedded,
            target.server_header,
        )
    )


def _unpacked(data: bytes) -> Target:
    base_url, profile, profile_path, embedded, server_header = pickle.loads(data)
    if not isinstance(profile, Profile):
        raise TypeError("the hand-over holds no profile")
    path = Path(profile_path) if profile_path else None
    return Target(base_url, profile, path, embedded, server_header=server_header)


def _keep(config: pytest.Config, target: Target) -> None:
    config.stash[HANDED_OVER] = target
    add_secrets(config, target.profile.secret_names())
    config.stash[TARGET_INFO] = target_info(target)
    config.stash[SECRETS] = tuple(target.profile.secrets())
