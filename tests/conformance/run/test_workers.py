"""``--workers auto``: two near the target, more the farther it is, measured over real sockets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.profile import load
from conformance.run import launch
from conformance.run.selection_size import ONE_PROCESS_BELOW, selected
from conformance.run.workers import MAX_WORKERS, NEAR_WORKERS, auto, for_round_trip, round_trip
from conformance.session import stop_signals
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


def test_a_run_narrowed_to_a_few_tests_runs_in_one_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    counted: list[list[str]] = []

    def selected(arguments: list[str], plugins: object) -> int:
        counted.append(arguments)
        return count

    monkeypatch.setattr(launch, "selected", selected)
    parse = cli._parser().parse_args
    few = parse(["run", "--requirements", "VER-PATH-V2,SDK-STATUS-304-IF-NONE-MATCH"])
    count = ONE_PROCESS_BELOW - 1
    assert launch.workers_for_selection(few, tmp_path / "i", 2, []) == 0
    assert "--collect-only" not in counted[-1] and "-n" not in counted[-1]
    assert launch.STOP_SIGNALS_PLUGIN not in counted[-1]  # a count must not mark the run finishing
    count = ONE_PROCESS_BELOW
    assert launch.workers_for_selection(few, tmp_path / "i", 2, []) == 2
    counted.clear()
    whole = parse(["run"])
    assert launch.workers_for_selection(whole, tmp_path / "i", 2, []) == 2
    assert counted == []  # a whole stage is not counted: it is many tests
    count = 3  # pytest arguments after -- narrow a run too
    assert launch.workers_for_selection(parse(["run", "--", "-k", "status"]), tmp_path, 2, []) == 0


def test_counting_a_selection_runs_no_test(tmp_path: Path) -> None:
    (tmp_path / "test_two.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.requirement('REQ-A')\ndef test_a():\n    raise SystemExit('ran')\n\n"
        "@pytest.mark.requirement('REQ-B')\ndef test_b():\n    raise SystemExit('ran')\n",
        encoding="utf-8",
    )
    arguments = ["-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)]
    assert selected([*arguments, "--requirements", "REQ-A"], []) == 1
    assert selected(arguments, []) == 2


def test_a_stop_while_counting_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def interrupted(arguments: list[str], plugins: object) -> None:
        stop_signals._state.stop = stop_signals.Stop("SIGINT", 0.0)
        return None  # pytest caught the interrupt and said so in its exit status

    monkeypatch.setattr(launch, "selected", interrupted)
    monkeypatch.setattr(stop_signals._state, "stop", None)
    options = cli._parser().parse_args(["run", "--requirements", "VER-PATH-V2"])
    with pytest.raises(KeyboardInterrupt):
        launch.workers_for_selection(options, tmp_path / "i", 2, [])
