"""The same seed against the same target gives the same cases and the same failures: two fuzz
runs with one seed against one embedded reference server (real uvicorn, SQLite, HTTP) log the
same generated requests (their digest, ids normalised: ``case_log``) and fail the same set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from stage_runner import StageResult, run_stage, serve

HIGH_RATE: dict[str, Any] = {"rate_burst": 100000, "rate_refill": 100000.0}


def _fuzz_details(result: StageResult) -> dict[str, Any]:
    assert result.report, result.output
    stage = next(s for s in result.report["stages"] if s["name"] == "fuzz")
    details: dict[str, Any] = stage["details"]
    return details


def _failed(result: StageResult) -> list[tuple[str, str]]:
    return sorted((t["test_id"], t["outcome"]) for t in result.fuzz_tests())


@pytest.mark.parametrize("seed", [7])
def test_the_same_seed_gives_the_same_cases_and_failures(tmp_path: Path, seed: int) -> None:
    with serve(tmp_path, **HIGH_RATE) as server:
        first = run_stage(server, tmp_path / "first", tier="smoke", seed=seed)
        second = run_stage(server, tmp_path / "second", tier="smoke", seed=seed)
    one, two = _fuzz_details(first), _fuzz_details(second)
    assert not one["budget_exhausted"] and not two["budget_exhausted"], "a cut run is not whole"
    assert one["cases_logged"] > 100
    assert (one["cases_logged"], one["cases_digest"]) == (
        two["cases_logged"],
        two["cases_digest"],
    )
    assert _failed(first) == _failed(second)
    assert one["failures_by_check"] == two["failures_by_check"]
    assert one["differences_by_key"] == two["differences_by_key"]
    # Another seed is another run: the digest says which cases were sent.
    (tmp_path / "other").mkdir()
    with serve(tmp_path / "other", **HIGH_RATE) as server:
        third = run_stage(server, tmp_path / "third", tier="smoke", seed=seed + 1)
    assert _fuzz_details(third)["cases_digest"] != one["cases_digest"]
