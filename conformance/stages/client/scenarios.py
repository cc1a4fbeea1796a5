"""The client stage's scenarios as data: what the scripted server answers, when, and which rules
each one judges.

Every time here is *nominal*: seconds at a time scale of 1, as a production service would say
them. A run multiplies each by the time scale (``settings.ClientSettings.time_scale``) for the
server's hints, ``Retry-After`` values and step lengths alike, and hands the same scale to the
client (``RCES_TIME_SCALE``) for its own cadence and backoff: the whole stage shrinks together.
A step lasts a number of status requests (``polls``) or until a nominal second counted from the
instance's first request (``until_s``); the last step lasts to the end.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Literal

SEND_LAST_HASH = "POLL-CLIENT-SEND-LAST-HASH"
HONOUR_HINT = "POLL-CLIENT-HONOUR-HINT"
HINT_JITTER = "POLL-CLIENT-HINT-JITTER"
HINT_JITTER_PER_POLL = "POLL-CLIENT-HINT-JITTER-PER-POLL"  # a convention
HINT_RELEASE = "POLL-CLIENT-HINT-RELEASE"
REFETCH_CHANGED = "POLL-CLIENT-REFETCH-CHANGED"
RETRY_AFTER = "POLL-CLIENT-RETRY-AFTER"
BACKOFF = "POLL-CLIENT-BACKOFF"
INSTANCE_ID = "SDK-CLIENT-INSTANCE-ID"
NUMERIC_HEADER = "SDK-CLIENT-NUMERIC-HEADER"
ENV_ALIAS = "SDK-CLIENT-ENV-ALIAS"
AUTHORIZATION = "SDK-CLIENT-AUTHORIZATION"

# Judged on every request of every scenario, on and off the happy path (after 304s, 5xx, 429s
# and lost connections alike): the hash sent back, its header's form, the identity headers, the
# environment alias and the authorization header.
EVERY_REQUEST = (SEND_LAST_HASH, INSTANCE_ID, NUMERIC_HEADER, ENV_ALIAS, AUTHORIZATION)
EVERY_REQUEST_JUDGES = ("last-hash", "headers")

Answer = Literal["snapshot", "error", "rate-limited", "reset"]


@dataclass(frozen=True)
class Hint:
    """A ``polling`` object: ``intervalSeconds`` (nominal) and ``jitterRatio``."""

    interval_s: float
    jitter_ratio: float


@dataclass(frozen=True)
class Snapshot:
    """A status snapshot: configurations as (id, alias, content version), and an experiments
    version (a change there moves the snapshot hash without moving any configuration hash)."""

    configurations: tuple[tuple[int, str, int], ...]
    experiments_version: int = 0

    def configuration_hash(self, configuration_id: int) -> str:
        for cid, alias, version in self.configurations:
            if cid == configuration_id:
                return _digest(f"cfg:{cid}:{alias}:{version}")[:24]
        raise KeyError(configuration_id)

    @property
    def hash(self) -> str:
        return _digest(json.dumps([self.configurations, self.experiments_version]))[:32]

    def hashes(self) -> dict[int, str]:
        return {cid: self.configuration_hash(cid) for cid, _, _ in self.configurations}


@dataclass(frozen=True)
class Step:
    """What status requests are answered with while the step lasts."""

    answer: Answer
    polls: int = 0  # lasts this many status requests ...
    until_s: float = 0.0  # ... or until this nominal second after the first request
    snapshot: int = 0  # index into the scenario's snapshots
    hint: Hint | None = None  # while set, every status answer is a 200 carrying it ...
    not_modified: bool = False  # ... or, this set too, a 304 (no body) to the current hash
    status: int = 200  # "error": the 5xx status
    retry_after: Literal["delta", "date"] | None = None  # "rate-limited": its form
    retry_after_s: float = 0.0  # nominal


@dataclass(frozen=True)
class Scenario:
    """One scripted conversation with one or more client instances."""

    name: str
    title: str
    requirement_ids: tuple[str, ...]
    judges: tuple[str, ...]  # names in ``judging.JUDGES``
    snapshots: tuple[Snapshot, ...]
    steps: tuple[Step, ...]
    duration_s: float  # nominal, from each instance's first request
    instances: int = 1
    timing: bool = False  # its evidence has intervals kept against intervals asked
    close_connections: bool = False  # answer with Connection: close (each request a new one)


BASE = Snapshot(((1, "gameplay", 1), (2, "economy", 1), (3, "matchmaking", 1), (4, "store", 1)))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _snapshots(
    *changes: dict[int, int | None], experiments: tuple[int, ...] = ()
) -> tuple[Snapshot, ...]:
    """BASE, then each change applied in turn (id -> new version, None: removed)."""
    found = [BASE]
    current = {cid: (alias, version) for cid, alias, version in BASE.configurations}
    for index, change in enumerate(changes):
        for cid, version in change.items():
            if version is None:
                current.pop(cid, None)
            else:
                alias = current.get(cid, (f"extra-{cid}", 0))[0]
                current[cid] = (alias, version)
        found.append(
            Snapshot(
                tuple((cid, a, v) for cid, (a, v) in sorted(current.items())),
                experiments[index] if index < len(experiments) else 0,
            )
        )
    return tuple(found)


HINT = Hint(interval_s=100.0, jitter_ratio=0.3)

# The backoff scenarios: runs of consecutive failures, each ended by one success (a backoff
# starts over after it), so that growth is judged over many short runs of every instance: the
# information a rank trend needs grows with the runs, the time they take with 2 ** failures.
# At the documented base (5 s) a client doubling with jitter of up to +20 % needs about 2.3 s a
# cycle (0.1 + 0.2 + 0.4 + 0.8 s, then its 0.6 s cadence) at the default time scale: six cycles
# and the two first polls fit well inside the duration (benchmarks/bench_client_backoff.py).
BACKOFF_RUN = 4  # consecutive failures a run
BACKOFF_RUNS = 6
BACKOFF_INSTANCES = 6
BACKOFF_DURATION_S = 1000.0


def _failure_runs(answer: Answer, status: int = 200) -> tuple[Step, ...]:
    """Two polls, then BACKOFF_RUNS runs of BACKOFF_RUN failures each ended by one 200/304."""
    runs = [
        step
        for _ in range(BACKOFF_RUNS)
        for step in (Step(answer, polls=BACKOFF_RUN, status=status), Step("snapshot", polls=1))
    ]
    return (Step("snapshot", polls=2), *runs[:-1], Step("snapshot"))


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="last-hash",
        title="sends the last hash seen, in the profile's form, and its identity headers",
        requirement_ids=EVERY_REQUEST,
        judges=EVERY_REQUEST_JUDGES,
        snapshots=_snapshots({2: 2}, {3: 2}),
        steps=(
            Step("snapshot", polls=3, snapshot=0),
            Step("snapshot", polls=3, snapshot=1),
            Step("snapshot", snapshot=2),
        ),
        duration_s=300.0,
    ),
    Scenario(
        name="hint",
        title="honours the polling hint, spread by jitterRatio, and lets it go",
        requirement_ids=(
            HONOUR_HINT,
            HINT_JITTER,
            HINT_JITTER_PER_POLL,
            HINT_RELEASE,
            *EVERY_REQUEST,
        ),
        judges=("hint", "hint-jitter", "hint-release", *EVERY_REQUEST_JUDGES),
        snapshots=_snapshots({1: 2}, {1: 3}),
        # The hint comes on 200s, then stays in force through 304s (a 304 has no body: it
        # cannot say polling is gone), until a 200 without it releases it.
        # Four instances of five or six hinted waits each: enough to tell a spread per poll
        # from one drawn once per instance (spread_criterion), as long as the backoff scenarios.
        steps=(
            Step("snapshot", until_s=150.0, snapshot=0),
            Step("snapshot", until_s=475.0, snapshot=1, hint=HINT),
            Step("snapshot", until_s=800.0, snapshot=1, hint=HINT, not_modified=True),
            Step("snapshot", snapshot=2),
        ),
        duration_s=1000.0,
        instances=4,
        timing=True,
    ),
    Scenario(
        name="refetch",
        title="refetches exactly the configurations whose hash moved",
        requirement_ids=(REFETCH_CHANGED, *EVERY_REQUEST),
        judges=("refetch", *EVERY_REQUEST_JUDGES),
        # 1: configuration 2 moves; 2: only the experiments move; 3: 1 and 4 move, 3 goes, 5 comes
        snapshots=_snapshots({2: 2}, {}, {1: 2, 4: 2, 3: None, 5: 1}, experiments=(0, 1, 1)),
        steps=(
            Step("snapshot", polls=2, snapshot=0),
            Step("snapshot", polls=2, snapshot=1),
            Step("snapshot", polls=2, snapshot=2),
            Step("snapshot", snapshot=3),
        ),
        duration_s=400.0,
    ),
    Scenario(
        name="retry-after",
        title="waits as long as Retry-After says after a 429",
        requirement_ids=(RETRY_AFTER, *EVERY_REQUEST),
        judges=("retry-after", *EVERY_REQUEST_JUDGES),
        snapshots=(BASE,),
        steps=(
            Step("snapshot", polls=2),
            Step("rate-limited", polls=1, status=429, retry_after="delta", retry_after_s=100.0),
            Step("snapshot", polls=2),
            Step("rate-limited", polls=1, status=429, retry_after="date", retry_after_s=150.0),
            Step("snapshot"),
        ),
        duration_s=550.0,
        timing=True,
    ),
    Scenario(
        name="backoff-5xx",
        title="backs off with jitter on 5xx instead of hammering",
        requirement_ids=(BACKOFF, *EVERY_REQUEST),
        judges=("backoff", *EVERY_REQUEST_JUDGES),
        snapshots=(BASE,),
        steps=_failure_runs("error", status=503),
        duration_s=BACKOFF_DURATION_S,
        instances=BACKOFF_INSTANCES,
        timing=True,
    ),
    Scenario(
        name="backoff-refused",
        title="backs off with jitter on refused (reset) connections instead of hammering",
        requirement_ids=(BACKOFF, *EVERY_REQUEST),
        judges=("backoff", *EVERY_REQUEST_JUDGES),
        snapshots=(BASE,),
        steps=_failure_runs("reset"),
        duration_s=BACKOFF_DURATION_S,
        instances=BACKOFF_INSTANCES,
        timing=True,
        close_connections=True,
    ),
)


def by_name() -> dict[str, Scenario]:
    return {scenario.name: scenario for scenario in SCENARIOS}


def requirement_ids() -> frozenset[str]:
    """Every requirement the client stage judges."""
    return frozenset(rid for scenario in SCENARIOS for rid in scenario.requirement_ids)
