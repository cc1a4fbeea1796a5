"""The profile's sections of bounds and load: rate limits, responses, load shedding, ``load``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimit:
    """``rate_limit`` and ``management_rate_limit``: a token bucket."""

    burst: int
    refill_per_second: float


@dataclass(frozen=True)
class SdkRateLimit(RateLimit):
    """``rate_limit``: the SDK endpoints' bucket, and what one bucket is kept for."""

    scope: str  # "key-and-instance" | "instance"
    # declares the Retry-After convention (only ``true``: written, it is judged at the interface)
    retry_after: bool = True

    def bucket(self, key: str | None, instance: str | None) -> tuple[str, str | None]:
        """The identity of the target's bucket a request with this key and instance id spends
        (no instance id: the callers behind one address share it)."""
        return (key or "" if self.scope == "key-and-instance" else "", instance)


@dataclass(frozen=True)
class Responses:
    """``responses``: bounds on one answer; a target that sends more, or takes longer, fails."""

    max_bytes: int
    max_seconds: float


@dataclass(frozen=True)
class LoadShedding:
    """``load_shedding``."""

    provoke: str
    burst_requests: int
    window_seconds: float
    settle_seconds: float


@dataclass(frozen=True)
class Load:
    """``load``: the load stage's fleet, its plan and the service's declared figures."""

    fleet: int
    cadence_seconds: float
    jitter_ratio: float
    run_seconds: float
    ramp_seconds: float
    write_interval_seconds: float | None
    noisy_instances: int
    noisy_rate_factor: float
    anonymous_pollers: int
    anonymous_rate_factor: float
    shedding_threshold: float | None
    release_threshold: float | None  # hysteresis: shedding stops under it (None: the threshold)
    threshold_margin: float
    propagation_seconds: float
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    min_not_modified_share: float | None
    min_throughput: float | None
