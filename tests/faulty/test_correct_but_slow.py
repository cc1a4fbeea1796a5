"""Self-test, the other direction: a correct server far away is certified, with nothing unmeasured.

The reference server, unchanged, behind the latency proxy (``tests/support/latency_proxy.py``, a
real relay in its own process on loopback) adding 0 ms (a plain reverse proxy), 40 ms (an ordinary
remote target) and 100 ms per exchange. The whole scenario stage runs against it as a user would
(``conformance run`` in a child process, default workers), and must come out conformant with every
checkable requirement passed: none failed, none not measurable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from faulty.harness import checkable_ids
from refserver.runner import start_server
from tests.support.latency_proxy import LatencyProxy
from tests.support.report_outcomes import requirement_outcomes
from tests.support.suite_run import certify

pytestmark = [pytest.mark.long, pytest.mark.timing]  # judged by the clock: one at a time


@pytest.mark.parametrize("delay_ms", [0, 40, 100], ids=lambda ms: f"{ms}ms")
def test_the_reference_server_far_away_is_conformant(delay_ms: int, tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    server = start_server(tmp_path / "refserver.db", profile_path=profile)
    try:
        with LatencyProxy(str(server.base_url), delay_ms) as proxy:
            report, output = certify(proxy.base_url, profile, tmp_path / "report")
    finally:
        server.stop()
    outcomes = requirement_outcomes(report)
    not_passed = {i: o for i, o in outcomes.items() if o != "pass"}
    assert report["verdict"] == "conformant", f"{not_passed}\n{output[-3000:]}"
    assert not not_passed, output[-3000:]
    assert set(outcomes) == checkable_ids()
