"""The poller's configuration: where to poll, who it is, and every timing knob, checked once.

Defaults follow the observed conventions of the real service's public clients: header names
``authorization``, ``environment``, ``server-id``, ``project-id``; ``If-None-Match: "<hash>"``;
an own cadence of 30 s with a jitter ratio of 0.2, never faster than every 5 s; backoff doubling
up to 5 minutes; refetch through ``GET /sdk/v2/bootstrap``.

Jitter readings (``jitter_reading``), for a wait of ``interval`` spread by ratio ``r``
(clamped to [0, 1]) with ``U`` uniform in [0, 1):

- ``above`` (default): ``interval * (1 + r * U)``, in [interval, interval * (1 + r)). The spec
  says "poll no faster than intervalSeconds, spread by jitterRatio" (4.3) and calls
  intervalSeconds "a minimum interval between polls" (8.2): this reading keeps the "no faster
  than" for every single wait and still spreads clients apart. It is also the conformance
  kit's default reading (``client.jitter_reading``), so the client passes with no profile.
- ``symmetric``: ``interval * (1 - r + 2 * r * U)``, in [interval * (1 - r), interval * (1 + r)),
  the formula the public clients use. Its mean is the interval, but single waits come in up to
  ``r * interval`` early, so a strict reading of "no faster than" fails it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

JitterReading = Literal["above", "symmetric"]
HashTransport = Literal["if-none-match", "query"]
RefetchMode = Literal["bootstrap", "per-configuration"]

JITTER_READINGS: tuple[JitterReading, ...] = ("above", "symmetric")
HASH_TRANSPORTS: tuple[HashTransport, ...] = ("if-none-match", "query")
REFETCH_MODES: tuple[RefetchMode, ...] = ("bootstrap", "per-configuration")

ENVIRONMENTS = ("production", "development", "studio")
INSTANCE_ID_MAX = 128
MAX_SAFE_INTEGER = 9007199254740991

STATUS_PATH = "/sdk/v2/status"
BOOTSTRAP_PATH = "/sdk/v2/bootstrap"


@dataclass(frozen=True)
class Headers:
    """Names of the SDK request headers (the spec does not show them; these are observed)."""

    authorization: str = "authorization"
    environment: str = "environment"
    instance_id: str = "server-id"
    project_id: str = "project-id"
    sdk_version: str = "sdkversion"
    if_none_match: str = "if-none-match"


@dataclass(frozen=True)
class Config:
    """Everything a poller needs. Times are seconds; ``time_scale`` multiplies the own ones.

    ``time_scale`` scales the own cadence, the floor and the backoff base and cap, so a test can
    run a 30 s cadence in 0.3 s. Delays the server gives (``polling.intervalSeconds``,
    ``Retry-After``) are never scaled: the server scales them itself if it wants to.
    """

    base_url: str
    sdk_key: str = field(repr=False)
    environment: str = "development"
    instance_id: str | None = None
    project_id: int | None = None
    headers: Headers = Headers()
    hash_transport: HashTransport = "if-none-match"
    cadence: float = 30.0
    cadence_jitter: float = 0.2
    floor: float = 5.0
    jitter_reading: JitterReading = "above"
    backoff_base: float = 5.0
    backoff_cap: float = 300.0
    backoff_jitter: float = 0.2
    time_scale: float = 1.0
    refetch: RefetchMode = "bootstrap"
    configuration_path: str = "/sdk/v2/configurations/{id}"
    timeout: float = 10.0
    random: Callable[[], float] = field(default=random.random, repr=False, compare=False)
    clock: Callable[[], float] = field(default=time.time, repr=False, compare=False)
    sleep: Callable[[float], None] | None = field(default=None, repr=False, compare=False)
    async_sleep: Callable[[float], Awaitable[None]] | None = field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        problems = list(_problems(self))
        if problems:
            raise ValueError("invalid refclient configuration: " + "; ".join(problems))

    def scaled(self, seconds: float) -> float:
        """An own delay after ``time_scale``."""
        return seconds * self.time_scale


def _problems(config: Config) -> list[str]:
    problems = []
    if not config.base_url.startswith(("http://", "https://")):
        problems.append("base_url must start with http:// or https://")
    if not config.sdk_key:
        problems.append("sdk_key must not be empty")
    if config.environment not in ENVIRONMENTS:
        problems.append(f"environment must be one of {', '.join(ENVIRONMENTS)}")
    if config.instance_id is not None and not 1 <= len(config.instance_id) <= INSTANCE_ID_MAX:
        problems.append(f"instance_id must be 1 to {INSTANCE_ID_MAX} characters")
    if config.project_id is not None and not 0 < config.project_id <= MAX_SAFE_INTEGER:
        problems.append(f"project_id must be in 1..{MAX_SAFE_INTEGER}")
    problems.extend(_choice_problems(config))
    problems.extend(_timing_problems(config))
    return problems


def _choice_problems(config: Config) -> list[str]:
    problems = []
    if config.hash_transport not in HASH_TRANSPORTS:
        problems.append(f"hash_transport must be one of {', '.join(HASH_TRANSPORTS)}")
    if config.jitter_reading not in JITTER_READINGS:
        problems.append(f"jitter_reading must be one of {', '.join(JITTER_READINGS)}")
    if config.refetch not in REFETCH_MODES:
        problems.append(f"refetch must be one of {', '.join(REFETCH_MODES)}")
    if config.refetch == "per-configuration" and "{id}" not in config.configuration_path:
        problems.append("configuration_path must contain {id}")
    return problems


def _timing_problems(config: Config) -> list[str]:
    problems = []
    if not config.floor > 0:
        problems.append("floor must be > 0 (a poller never runs in a tight loop)")
    if not config.cadence >= config.floor:
        problems.append(f"cadence must be >= floor ({config.floor} s)")
    if not config.backoff_base >= config.floor:
        problems.append(f"backoff_base must be >= floor ({config.floor} s)")
    if not config.backoff_cap >= config.backoff_base:
        problems.append("backoff_cap must be >= backoff_base")
    for name in ("cadence_jitter", "backoff_jitter"):
        if not 0 <= getattr(config, name) <= 1:
            problems.append(f"{name} must be in [0, 1]")
    if not config.time_scale > 0:
        problems.append("time_scale must be > 0")
    if not config.timeout > 0:
        problems.append("timeout must be > 0")
    return problems
