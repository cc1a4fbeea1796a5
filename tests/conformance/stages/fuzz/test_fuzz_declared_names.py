"""End to end: a correct server that declares other names passes the fuzz stage.

The reference server behind the renaming translator of ``renaming_target`` (other header names,
body and payload fields, query parameters, error fields, 200 for a create, 422 for invalid
input), certified by ``conformance run --stage fuzz --tier smoke`` in a child process with a
profile declaring those names. The stage must fuzz the declared interface: no requirement
failed, none left unmeasured, and no spec doubt that a declared name caused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from renaming_target import DECLARED, write_profile
from renaming_target import wrap as renaming

from conformance.stages.fuzz.plugin import stage_requirements
from refserver.runner import start_server
from tests.support.report_outcomes import requirement_outcomes
from tests.support.suite_run import certify

pytestmark = pytest.mark.long
# The rate limit out of reach: the smoke tier's own pace is not what this test is about.
HIGH_RATE: dict[str, Any] = {"rate_burst": 100000, "rate_refill": 100000.0}


def _default_names() -> set[str]:
    """Every name the contract uses where the profile renames it here (the reference's)."""
    from conformance.profile.defaults import DEFAULTS

    names: set[str] = set()

    def walk(declared: dict[str, Any], defaults: dict[str, Any]) -> None:
        for key, value in declared.items():
            if isinstance(value, dict):
                walk(value, defaults[key])
            elif isinstance(value, str):
                names.add(str(defaults[key]))

    walk(DECLARED, DEFAULTS)
    return names


@pytest.mark.parametrize("seed", [20261122, 7])
def test_a_server_declaring_other_names_passes_the_fuzz_stage(seed: int, tmp_path: Path) -> None:
    server = start_server(tmp_path / "refserver.db", wrap=renaming, **HIGH_RATE)
    try:
        profile = write_profile(Path(server.profile_path), tmp_path / "renamed.yaml")
        stage = ("--stage", "fuzz", "--tier", "smoke", "--seed", str(seed))
        report, output = certify(str(server.base_url), profile, tmp_path / "report", stage)
    finally:
        server.stop()
    assert report, output[-4000:]
    output = output[-4000:]
    outcomes = requirement_outcomes(report)
    counts = {o: list(outcomes.values()).count(o) for o in set(outcomes.values())}
    print(f"seed {seed}: {counts}")
    failed = {r["id"]: r["evidence"] for r in report["requirements"] if r["outcome"] == "fail"}
    assert failed == {}, output
    unmeasured = [i for i, o in outcomes.items() if o == "not-measurable"]
    assert unmeasured == [], output
    assert set(outcomes) == stage_requirements()  # the whole scope of the stage, judged
    # A doubt may only be about a gap the profile cannot declare, never about a declared name.
    names = _default_names()
    doubts = [r for r in report["requirements"] if r["outcome"] == "spec-doubt"]
    by_name = [
        (r["id"], e.get("title"), e.get("expected"))
        for r in doubts
        for e in r["evidence"]
        if any(name in json.dumps(e) for name in names)
    ]
    assert by_name == [], output
    assert doubts == [], [(r["id"], r["evidence"][:1]) for r in doubts]
    assert report["verdict"] == "conformant", output
    # The stage says which document it fuzzed: the contract as this profile declares it.
    fuzz = next(s for s in report["stages"] if s["name"] == "fuzz")["details"]
    declared = fuzz["contract"]["declared"]
    assert (
        declared["headers.instance_id"] == "x-instance"
        and declared["statuses.create_experiment"] == 200
    )
    assert fuzz["cases"] > 100 and fuzz["failures_by_check"] == {}
