"""The load plan: what the fleet does, as plain data the Locust processes read (no profile there).

``plan_from`` turns the profile's ``load`` section (and the rate limit, header names, credentials)
into a ``Plan``; ``Plan.to_json`` is what the Locust master reads from ``RCES_LOAD_PLAN`` and
hands to every worker. The plan holds the SDK key and the PAT: it is written owner-only and never
printed (``Plan.public`` is the printable view).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from conformance.errors import UsageError

if TYPE_CHECKING:
    from conformance.profile import Profile

NOISY_START_SHARE = 0.35  # the noisy instances poll from this share of the run...
ANONYMOUS_START_SHARE = 0.55  # ...the anonymous pollers from this one...
PHASE_SECONDS = 4.0  # ...each for this long (apart, so each bucket rule is seen on its own)
DRAIN_SECONDS = 2.0  # after the run: users stopped, the last records reach the master
SECRET_FIELDS = ("sdk_key", "pat")
MAX_USERS = 1000  # Locust users per fleet: larger fleets are simulated in shards (greenlets, CPU)


@dataclass(frozen=True)
class Plan:
    base_url: str
    sdk_key: str = field(repr=False)
    pat: str = field(repr=False)
    environment_header: str
    environment: str
    environment_id: int
    instance_header: str
    application_id: int
    configuration_id: int | None  # the writer's configuration; None: no writes
    operations_field: str
    fleet: int
    cadence_s: float
    jitter_ratio: float
    run_s: float
    ramp_s: float
    write_interval_s: float | None
    noisy: int
    noisy_rate: float  # polls per second per noisy instance
    anonymous: int
    anonymous_rate: float  # polls per second per anonymous poller
    timeout_s: float
    run_tag: str
    code_field: str | None = "errorCode"  # None: errors.code_field null, no code field
    message_field: str = "message"
    rate_limited_status: int = 429  # errors.rate_limited_status: the rate-limit refusal
    noisy_window: tuple[float, float] = (0.0, 0.0)
    anonymous_window: tuple[float, float] = (0.0, 0.0)
    min_interval_s: float = 5.0  # clients never poll faster (observed conventions)
    shard: int = 1  # instances one Locust user simulates (each its own id and state)
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def users(self) -> int:
        """Locust users of the well-behaved fleet: one per shard of ``shard`` instances."""
        return -(-self.fleet // self.shard)

    @property
    def spawn_rate(self) -> float:
        """Users started per second: the whole fleet over the ramp."""
        return max(1.0, self.users / self.ramp_s) if self.ramp_s > 0 else float(self.users)

    @property
    def herd_rate(self) -> float:
        """First polls per second during the ramp (each instance polls as it starts)."""
        return self.fleet / self.ramp_s if self.ramp_s > 0 else float(self.fleet)

    @property
    def planned_rate(self) -> float:
        """Status polls per second the well-behaved fleet offers at its own cadence."""
        return self.fleet / self.cadence_s

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Plan:
        data = json.loads(text)
        data["noisy_window"] = tuple(data["noisy_window"])
        data["anonymous_window"] = tuple(data["anonymous_window"])
        return cls(**data)

    def public(self) -> dict[str, object]:
        """The plan as the reports show it: no credentials, no target URL credentials."""
        data: dict[str, object] = asdict(self)
        for name in SECRET_FIELDS:
            data.pop(name)
        data.pop("extra")
        return data


def windows(run_s: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The noisy and anonymous phases (seconds from the start), each ``PHASE_SECONDS`` long."""
    noisy = run_s * NOISY_START_SHARE
    anonymous = run_s * ANONYMOUS_START_SHARE
    return (noisy, noisy + PHASE_SECONDS), (anonymous, anonymous + PHASE_SECONDS)


def plan_from(
    profile: Profile, base_url: str, run_tag: str, configuration_id: int | None, **overrides: Any
) -> Plan:
    """The plan for a target from its loaded profile; ``overrides`` replace plan fields."""
    load = profile.load
    key = profile.key_for("development")
    if key is None:
        raise UsageError(
            "the load stage needs an SDK key for the development environment",
            "add one under credentials.sdk_keys",
        )
    refill = profile.rate_limit.refill_per_second
    noisy_window, anonymous_window = windows(overrides.get("run_s", load.run_seconds))
    values: dict[str, Any] = {
        "base_url": base_url.rstrip("/"),
        "sdk_key": key.key,
        "pat": profile.credentials.pat,
        "environment_header": profile.headers.environment,
        "environment": "development",
        "environment_id": profile.environment_id("development"),
        "instance_header": profile.headers.instance_id,
        "application_id": profile.project.application_id,
        "configuration_id": configuration_id,
        "operations_field": profile.bodies.patch.operations,
        "fleet": load.fleet,
        "cadence_s": load.cadence_seconds,
        "jitter_ratio": load.jitter_ratio,
        "run_s": load.run_seconds,
        "ramp_s": load.ramp_seconds,
        "write_interval_s": load.write_interval_seconds if configuration_id is not None else None,
        "noisy": load.noisy_instances,
        "noisy_rate": refill * load.noisy_rate_factor,
        "anonymous": load.anonymous_pollers,
        "anonymous_rate": refill * load.anonymous_rate_factor,
        "timeout_s": profile.responses.max_seconds,
        "run_tag": run_tag,
        "code_field": profile.errors.code_field,
        "message_field": profile.errors.message_field,
        "rate_limited_status": profile.errors.rate_limited_status,
        "noisy_window": noisy_window,
        "anonymous_window": anonymous_window,
    }
    values.update(overrides)
    values.setdefault("shard", -(-int(values["fleet"]) // MAX_USERS))
    return Plan(**values)
