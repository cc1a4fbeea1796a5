"""The fuzz stage against correct-but-different variants of the reference and the faults beside
them (``tests/variants/fuzzload.py``, ``tests/faulty``), real server and HTTP, smoke tier.

- Error answers in ``application/problem+json`` where the spec says "a JSON body" (status,
  bootstrap, experiments): interface-conformant, the exact type listed as a drop-in difference.
- A method the status endpoint does not list answered 404 (not 405): interface-conformant,
  the 405 convention (ERR-UNLISTED-METHOD-405) listed as a drop-in difference; declared
  (``conventions: production``), a failure of that requirement alone.
- Status errors in ``text/plain`` (the catalogue's ``status-errors-not-json``): they fail the
  status errors' JSON body (4.3 r4) and the error shape, never the 200 snapshot's requirement.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from stage_runner import StageResult, run_stage

from tests.support.report_outcomes import requirement_outcomes

TESTS = str(Path(__file__).resolve().parents[3])  # faulty.* and variants.* are top packages
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

SEED = 7
SDK_ONLY = "test_fuzz and (status or bootstrap) and not credentials"


def _run(
    tmp_path: Path, make: Any, conventions: bool, selection: str, tier: str = "smoke"
) -> StageResult:
    """The stage, narrowed to ``selection``, against the reference wrapped in the handler
    ``make(profile path, database)`` builds (when the server starts, as the harness does)."""
    from faulty.asgi import FaultyApp

    from refserver.runner import start_server

    db = tmp_path / "variant.db"
    profile_path = db.with_suffix(".yaml")
    server = start_server(
        db, profile_path=profile_path, wrap=lambda app: FaultyApp(app, make(profile_path, db))
    )
    try:
        path = Path(server.profile_path)
        profile = yaml.safe_load(path.read_text("utf-8"))
        if not conventions:
            profile.pop("conventions", None)
            path.write_text(yaml.safe_dump(profile, sort_keys=False), "utf-8")
        return run_stage(
            server, tmp_path / "reports", tier=tier, seed=SEED, extra=["-k", selection]
        )
    finally:
        server.stop()


def test_problem_json_errors_pass_the_interface_with_the_media_type_a_difference(
    tmp_path: Path,
) -> None:
    from variants.fuzzload import problem_json_errors

    result = _run(tmp_path, lambda _p, _d: problem_json_errors, False, SDK_ONLY)
    assert result.report, result.output
    outcomes = requirement_outcomes(result.report)
    assert "fail" not in outcomes.values(), (outcomes, result.output)
    keys = {d["key"] for d in result.report.get("differences", [])}
    assert "errors.media_type" in keys, keys  # the key that would declare problem+json


@pytest.mark.parametrize("conventions", [True])
def test_plain_text_status_errors_fail_the_error_requirements_only(
    tmp_path: Path, conventions: bool
) -> None:
    from faulty.catalogue import FAULTS
    from faulty.context import Context

    fault = next(f for f in FAULTS if f.name == "status-errors-not-json")
    selection = "test_fuzz and status and not credentials"
    make = lambda profile, db: fault.make(Context.load(profile, db))  # noqa: E731
    result = _run(tmp_path, make, conventions, selection)
    assert result.report, result.output
    outcomes = requirement_outcomes(result.report)
    failed = {rid for rid, outcome in outcomes.items() if outcome == "fail"}
    assert failed == {"ERR-STATUS-BODY-JSON", "ERR-BODY-SHAPE"}, outcomes
    assert outcomes.get("SDK-STATUS-200-SNAPSHOT") != "fail"


async def _unlisted_method_404(request: Any, forward: Any) -> Any:
    """A method the status endpoint does not list answered 404 with a JSON body: the interface
    lists GET alone there, and RFC 9110 lets a server refuse another method without a 405."""
    from faulty.asgi import error_response

    if request.path == "/sdk/v2/status" and request.method not in ("GET", "HEAD"):
        return error_response(404, "NOT_FOUND")
    return await forward(request)


@pytest.mark.parametrize("conventions", [False, True])
def test_an_unlisted_method_refused_404_is_a_drop_in_difference(
    tmp_path: Path, conventions: bool
) -> None:
    """The engine's coverage phase (the pr tier) sends the unlisted methods."""
    selection = "test_fuzz and status and not credentials"
    result = _run(tmp_path, lambda _p, _d: _unlisted_method_404, conventions, selection, "pr")
    assert result.report, result.output
    outcomes = requirement_outcomes(result.report)
    failed = {rid for rid, outcome in outcomes.items() if outcome == "fail"}
    keys = {d["key"] for d in result.report.get("differences", [])}
    if conventions:
        assert failed == {"ERR-UNLISTED-METHOD-405"}, (outcomes, result.output)
    else:
        assert failed == set(), (outcomes, result.output)
        assert outcomes["ERR-UNLISTED-METHOD-405"] == "not-applicable"
        assert "conventions" in keys, keys
