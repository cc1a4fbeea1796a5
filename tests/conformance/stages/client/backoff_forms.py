"""Simulated clients of the backoff scenarios: common backoff forms (correct and faulty) played
through a scenario's own script, recorded as the scripted server would record them, with
scheduling noise on every wait. Used by the backoff judge's simulation test and by
``benchmarks/bench_client_backoff.py``."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from conformance.stages.client.recording import Recorded
from conformance.stages.client.runs import InstanceRun, ScenarioRun
from conformance.stages.client.scenarios import by_name
from conformance.stages.client.script import InstanceScript
from conformance.stages.client.settings import STATUS_PATH, ClientSettings, settings_from
from refclient import timing

SETTINGS = settings_from("client", None)
SCALE = SETTINGS.time_scale
BASE = 5.0 * SCALE  # the documented backoff base, cap, cadence and floor, scaled
CAP = 300.0 * SCALE
CADENCE = 30.0 * SCALE
FLOOR = 5.0 * SCALE
FLAT = 25.0 * SCALE  # a flat retry's wait
TIGHT = 0.05  # a tight loop's wait (tests/faulty/clients: tight-5xx-loop)
ANSWER_S = 0.001  # the scripted server's answer time


def doubled(failures: int) -> float:
    return min(CAP, BASE * 2.0 ** (failures - 1))


class Backoff:
    """One instance's waits after failures: ``wait(n)`` after the n-th consecutive failure;
    ``reset()`` after a success."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def wait(self, failures: int) -> float:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget the failures (a backoff starts over after a success)."""


class Reference(Backoff):
    """refclient: doubling from the base, spread up to 20 % above, capped, never below the
    floor."""

    def wait(self, failures: int) -> float:
        return max(FLOOR, timing.backoff(failures, BASE, CAP, 0.2, self.rng.random()))


class EqualJitter(Backoff):
    """Each wait uniform in [d/2, d), d doubling to the cap."""

    def wait(self, failures: int) -> float:
        d = doubled(failures)
        return d / 2 + d / 2 * self.rng.random()


class FullJitter(Backoff):
    """Each wait uniform in [0, d), d doubling to the cap (no floor: a wait can be ~0)."""

    def wait(self, failures: int) -> float:
        return doubled(failures) * self.rng.random()


class FullJitterFloor(FullJitter):
    """Full jitter, never below the 5 s floor."""

    def wait(self, failures: int) -> float:
        return max(FLOOR, super().wait(failures))


class DecorrelatedJitter(Backoff):
    """wait = min(cap, uniform(base, previous * 3)), previous starting at the base."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.previous = BASE

    def wait(self, failures: int) -> float:
        self.previous = min(CAP, self.rng.uniform(BASE, self.previous * 3))
        return self.previous

    def reset(self) -> None:
        self.previous = BASE


class Flat(Backoff):
    """The same wait after every failure."""

    def wait(self, failures: int) -> float:
        return FLAT


class FlatJittered(Backoff):
    """The same wait, spread by 20 % either side."""

    def wait(self, failures: int) -> float:
        return FLAT * (0.8 + 0.4 * self.rng.random())


class FlatFullJitter(Backoff):
    """A flat retry with full jitter: uniform in [0, w)."""

    def wait(self, failures: int) -> float:
        return FLAT * self.rng.random()


class TightLoop(Backoff):
    """Retries every 50 ms."""

    def wait(self, failures: int) -> float:
        return TIGHT


class NoJitter(Backoff):
    """Doubling to the cap without jitter: instances that failed together retry together."""

    def wait(self, failures: int) -> float:
        return doubled(failures)


@dataclass(frozen=True)
class Form:
    """A backoff form: how each instance waits, whether it is correct, and whether its
    instances share one random seed."""

    name: str
    backoff: Callable[[random.Random], Backoff]
    correct: bool
    shared_seed: bool = False


FORMS: tuple[Form, ...] = (
    Form("reference (+20 %)", Reference, True),
    Form("equal jitter [d/2, d)", EqualJitter, True),
    Form("full jitter [0, d)", FullJitter, True),
    Form("full jitter, 5 s floor", FullJitterFloor, True),
    Form("decorrelated jitter", DecorrelatedJitter, True),
    Form("flat, no jitter", Flat, False),
    Form("flat, +-20 % jitter", FlatJittered, False),
    Form("flat, full jitter", FlatFullJitter, False),
    Form("tight loop (50 ms)", TightLoop, False),
    Form("doubling, no jitter", NoJitter, False),
    Form("equal jitter, shared seed", EqualJitter, False, shared_seed=True),
)


@dataclass(frozen=True)
class Noise:
    """Scheduling noise added to every wait: exponential with mean ``mean_s``, and now and
    then a hiccup uniform in [0, ``hiccup_s``)."""

    mean_s: float = 0.01
    hiccup_share: float = 0.01
    hiccup_s: float = 0.2

    def draw(self, rng: random.Random) -> float:
        extra = rng.expovariate(1 / self.mean_s)
        if rng.random() < self.hiccup_share:
            extra += self.hiccup_s * rng.random()
        return extra


NOISE = Noise()
LOADED = Noise(mean_s=0.025, hiccup_share=0.03, hiccup_s=0.3)


def simulate(
    form: Form,
    scenario: str,
    rng: random.Random,
    noise: Noise = NOISE,
    settings: ClientSettings = SETTINGS,
) -> ScenarioRun:
    """One run of ``scenario`` by instances of ``form``, as recorded."""
    script_of = by_name()[scenario]
    seed = rng.random()
    instances = []
    for n in range(1, script_of.instances + 1):
        name = f"{scenario}#{n}"
        own = random.Random(seed if form.shared_seed else rng.random())
        instances.append(_instance(name, form.backoff(own), own, rng, noise, settings))
    return ScenarioRun(script_of, settings, instances)


def _instance(
    name: str,
    backoff: Backoff,
    own: random.Random,
    rng: random.Random,
    noise: Noise,
    settings: ClientSettings,
) -> InstanceRun:
    script = InstanceScript(by_name()[name.split("#")[0]], name, f"id-{name}", settings.time_scale)
    run = InstanceRun(name, f"id-{name}", script, "http://127.0.0.1:9")
    end = settings.scaled(script.scenario.duration_s)
    at, failures = 0.0, 0
    while at < end:
        seq = script.saw_request(at)
        index, step = script.take_step(at)
        status: int | None = 200 if seq == 1 else 304
        if step.answer == "error":
            status = step.status
        elif step.answer == "reset":
            status = None
        answered = at if status is None else at + ANSWER_S
        record = Recorded(name, seq, "GET", STATUS_PATH, {}, {}, at, "status", answered, 0.0)
        record.status, record.step = status, index
        run.records.append(record)
        if status is None or status >= 500:
            failures += 1
            wait = backoff.wait(failures)
        elif index == len(script.scenario.steps) - 1:
            break  # the script has no failure left: the rest is polling at the cadence
        else:
            failures = 0
            backoff.reset()
            wait = max(FLOOR, CADENCE * (0.8 + 0.4 * own.random()))
        at = answered + wait + noise.draw(rng)
    run.ended = min(at, end)
    return run
