"""How many pytest-xdist workers ``--workers auto`` uses: more the farther away the target is.

Most scenarios are chains of requests, each waiting for the previous answer, so against a
distant target a run is bound by round trips, not by CPU, and independent scenarios overlap best
in more processes (``--dist loadgroup`` keeps each xdist group on one worker; the pacer splits
shared buckets between however many there are). On loopback, where the CPU is the bound, every
extra worker only adds its start-up (importing pytest and the suite, collecting, session
fixtures), so ``auto`` stays at ``NEAR_WORKERS`` there. The figures behind the constants:
benchmarks/README.md, "Workers for a distant target".

The round trip is measured, not guessed: the fastest of ``PROBES`` status polls on one
keep-alive connection (the first pays the handshake too), after the pre-flight check proved
the target answers. The fastest, not the median: on a busy machine every answer also waits for
a CPU, and more workers would only make that worse.
"""

from __future__ import annotations

import math
import time

import httpx

from conformance.profile import Profile

NEAR_WORKERS = 2  # loopback: two CPU-bound workers were the fastest on two cores
NEAR_SECONDS = 0.005  # a round trip below this is "near"
SECONDS_PER_WORKER = 0.010  # one worker per this much round trip, from NEAR_WORKERS up
MAX_WORKERS = 8  # past this a worker's start-up costs more than it overlaps
PROBES = 5
PROBE_INSTANCE = "cf-preflight"


def for_round_trip(seconds: float) -> int:
    """Workers for a target this far away: 2 when near, one per 10 ms of round trip, at most 8."""
    if seconds < NEAR_SECONDS:
        return NEAR_WORKERS
    return max(NEAR_WORKERS, min(MAX_WORKERS, math.ceil(seconds / SECONDS_PER_WORKER)))


def round_trip(base_url: str, profile: Profile) -> float:
    """The fastest of ``PROBES`` status polls on one keep-alive connection (seconds)."""
    key = profile.credentials.sdk_keys[0]
    headers = {
        "authorization": key.key,
        profile.headers.environment: key.environments[0],
        profile.headers.instance_id: PROBE_INSTANCE,
    }
    times = []
    with httpx.Client(timeout=10.0) as http:
        for _ in range(PROBES):
            started = time.perf_counter()
            try:
                http.get(f"{base_url}/sdk/v2/status", headers=headers)
            except httpx.TransportError:
                return 0.0  # pre-flight has just reached it: leave the judging to the run
            times.append(time.perf_counter() - started)
    return min(times)


def auto(base_url: str, profile: Profile) -> int:
    """``--workers auto``: from the target's measured round trip."""
    return for_round_trip(round_trip(base_url, profile))
