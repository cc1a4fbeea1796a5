"""The fuzz stage alone (pr tier, a fixed seed) gives a key's default the meaning the scenarios give
it, at two levels.

- Under the reference's own profile (``conventions: production``) three faulty servers of the
  catalogue (``tests/faulty``) fail what the specification says: errors sent as ``text/plain``
  (spec 4.1 "Both send Content-Type: application/json"), error bodies wrapped in an array (the
  declared error shape), an out-of-range numeric header dropped instead of refused (spec 4.3).
- Under a profile that declares only names (the reference's own, without ``conventions``), small
  correct-but-different servers (``json_rewrite``: the reference server, each departing from one
  convention no key expresses) pass at the interface level with the departure listed as a
  drop-in difference, and at most 3 spec doubts.

Each run is narrowed (``-k``) to the operations the defect or departure shows on.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml
from json_rewrite import (
    JsonRewrite,
    Rewrite,
    active_word,
    kebab_codes,
    lean_experiments,
    without,
)
from stage_runner import StageResult, run_stage

from tests.support.report_outcomes import requirement_outcomes

pytestmark = pytest.mark.long

SEED = 20261128
MAX_DOUBTS = 3  # the bound for a correct server that keeps none of the unkeyed structure


def _run(
    tmp_path: Path, wrap: Any, selection: str, conventions: bool = True, prime: bool = False
) -> StageResult:
    from refserver.runner import start_server

    db = tmp_path / "levels.db"
    server = start_server(db, profile_path=_profile_path(db), wrap=wrap)
    try:
        path = Path(server.profile_path)
        profile = yaml.safe_load(path.read_text("utf-8"))
        if not conventions:
            del profile["conventions"]
            path.write_text(yaml.safe_dump(profile, sort_keys=False), "utf-8")
        if prime:
            _observe_a_context_property(str(server.base_url), profile)
        return run_stage(
            server, tmp_path / "reports", tier="pr", seed=SEED, extra=["-k", selection]
        )
    finally:
        server.stop()


def _observe_a_context_property(base_url: str, profile: dict[str, Any]) -> None:
    """One bootstrap with identity and a context, so the context-properties list has an entry."""
    key = profile["credentials"]["sdk_keys"][0]["key"]
    names = profile["headers"]
    headers = {
        "authorization": key,
        names["unit_id"]: "player-1",
        names["unit_type"]: "user",
        names["unit_context"]: '{"country": "DE"}',
    }
    answer = requests.get(f"{base_url}/sdk/v2/bootstrap", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text


def _profile_path(db: Path) -> Path:
    return db.with_name(db.name + ".profile.yaml")


def _catalogue_fault(name: str, db: Path) -> Any:
    """The catalogue's fault ``name`` as the harness serves it (``faulty.harness.run_fault``)."""
    tests = str(Path(__file__).resolve().parents[3])  # faulty.* imports itself as a top package
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from faulty.asgi import FaultyApp
    from faulty.catalogue import FAULTS
    from faulty.context import Context

    fault = next(f for f in FAULTS if f.name == name)
    assert not fault.profile, "served under the reference's own profile"

    def wrap(app: Any) -> Any:
        return FaultyApp(app, fault.make(Context.load(_profile_path(db), db)))

    return wrap


FAULTS: dict[str, tuple[str, tuple[str, ...]]] = {
    # fault: (-k selection, the requirements the fuzz stage must fail)
    "management-errors-not-json": (
        "test_fuzz and configuration and not experiments and not credentials",
        ("CFG-RESPONSE-CONTENT-TYPE-JSON", "ERR-BODY-SHAPE"),
    ),
    "error-bodies-in-an-array": (
        "test_fuzz and status and not credentials",
        ("ERR-BODY-SHAPE",),
    ),
    "numeric-header-zero-accepted": (
        "test_fuzz and status and not credentials",
        ("ERR-VALIDATION-STATUS",),
    ),
}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_the_fuzz_stage_alone_fails_a_fault_of_what_the_specification_says(
    tmp_path: Path, name: str
) -> None:
    selection, broken = FAULTS[name]
    result = _run(tmp_path, _catalogue_fault(name, tmp_path / "levels.db"), selection)
    assert result.report, result.output
    assert result.returncode != 0, result.output
    outcomes = requirement_outcomes(result.report)
    failed = {rid for rid, outcome in outcomes.items() if outcome == "fail"}
    assert failed == set(broken), outcomes  # exactly: what the defect breaks, nothing else


WRAPPERS: dict[str, tuple[Rewrite, str, str]] = {
    # departure: (rewrite, -k selection, the difference's key)
    "kebab-case error codes": (
        kebab_codes,
        "test_fuzz and rollout and not credentials",
        "contract: ErrorBody.errorCode (pattern)",
    ),
    "an active word of its own": (
        active_word,
        "test_fuzz and analytics-catalog and not credentials",
        "experiment_payload.running",  # the active word's key (undeclared: a drop-in difference)
    ),
    "experiment records without rollout or terminatedAt": (
        lean_experiments,
        "test_fuzz and GET and experimentId and not credentials and not counts and not "
        "assignments and not members and not rollout",
        "contract: Experiment.rollout (required)",
    ),
    "assignment records without assignmentVersion": (
        without("assignmentVersion", "/experiments"),
        "test_fuzz and assignments and POST and not credentials and not unenroll and not "
        "reactivate",
        "contract: Assignment.assignmentVersion (required)",
    ),
    "context properties without seenCount": (
        without("seenCount", "/context-properties"),
        "test_fuzz and context-properties and not credentials",
        "contract: ContextProperties.items.seenCount (required)",
    ),
    "bootstrap entries without privacy": (
        without("privacy", "/sdk/v2/bootstrap"),
        "test_fuzz and bootstrap and not credentials",
        "contract: BootstrapConfiguration.privacy (required)",
    ),
}


@pytest.mark.parametrize("departure", sorted(WRAPPERS))
def test_a_correct_server_without_the_references_unkeyed_structure_passes_the_interface(
    tmp_path: Path, departure: str
) -> None:
    rewrite, selection, key = WRAPPERS[departure]
    prime = "context-properties" in selection
    wrap = lambda app: JsonRewrite(app, rewrite)  # noqa: E731
    result = _run(tmp_path, wrap, selection, conventions=False, prime=prime)
    assert result.report, result.output
    outcomes = requirement_outcomes(result.report)
    assert "fail" not in outcomes.values(), outcomes
    assert result.returncode == 0, result.output
    # Narrowed to a few operations, the rest of the stage's scope is unmeasured: "incomplete".
    assert result.report["levels"]["interface"] in ("conformant", "incomplete")
    doubts = [rid for rid, outcome in outcomes.items() if outcome == "spec-doubt"]
    assert len(doubts) <= MAX_DOUBTS, doubts
    keys = {d["key"] for d in result.report.get("differences", [])}
    assert key in keys, keys
    assert result.report["levels"]["drop_in"] == "not-conformant"
