"""``--workers auto``: two near the target, more the farther it is, measured over real sockets."""

from __future__ import annotations

from typing import Any

from conformance.run.workers import MAX_WORKERS, NEAR_WORKERS, auto, for_round_trip, round_trip
from conformance.target.profile import load
from tests.support.latency_proxy import LatencyProxy


def test_near_targets_keep_two_workers_far_ones_get_more() -> None:
    assert for_round_trip(0.0005) == NEAR_WORKERS
    assert for_round_trip(0.0049) == NEAR_WORKERS
    assert for_round_trip(0.040) == 4
    assert for_round_trip(0.045) == 5
    assert for_round_trip(0.100) == MAX_WORKERS
    assert for_round_trip(5.0) == MAX_WORKERS


def test_the_round_trip_is_measured_through_the_network(reference_server: Any) -> None:
    profile = load(reference_server.profile_path)
    near = round_trip(str(reference_server.base_url).rstrip("/"), profile)
    with LatencyProxy(str(reference_server.base_url), 40) as proxy:
        far = round_trip(proxy.base_url, profile)
        workers = auto(proxy.base_url, profile)
    assert 0.040 <= far < 0.040 + 1.0, far
    assert far > near
    assert workers >= 4


def test_an_unreachable_target_is_left_to_the_run(
    closed_port_url: str, reference_server: Any
) -> None:
    assert round_trip(closed_port_url, load(reference_server.profile_path)) == 0.0
