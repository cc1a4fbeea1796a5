"""End to end: the experiment scenarios certify a real reference server and leave nothing running.

One reference server (uvicorn on 127.0.0.1:0, a real SQLite file) outlives a ``conformance run``
limited to the experiment requirements, so the test can look at what the run left behind.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from conformance.catalogue.requirements import load_catalogue
from conformance.profile import Profile, load
from refserver.runner import start_server
from tests.support.report_outcomes import requirement_outcomes

EXPERIMENT_IDS = sorted(
    r.id for r in load_catalogue() if r.scope == "experiments" and r.subject == "server"
)


@dataclass
class Run:
    base_url: str
    profile: Profile
    code: int
    output: str
    report: dict[str, Any]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    folder = tmp_path_factory.mktemp("experiments-e2e")
    server = start_server(folder / "ref.db", port=0, host="127.0.0.1")
    try:
        command = [
            sys.executable,
            "-c",
            "import sys; from conformance.cli import main; sys.exit(main(sys.argv[1:]))",
            "run",
            "--base-url",
            str(server.base_url),
            "--profile",
            str(server.profile_path),
            "--requirements",
            ",".join(EXPERIMENT_IDS),
            "--report-dir",
            str(folder / "reports"),
            "--quiet",
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        report_file = folder / "reports" / "conformance.json"
        report = json.loads(report_file.read_text()) if report_file.exists() else {}
        yield Run(
            str(server.base_url).rstrip("/"),
            load(server.profile_path),
            done.returncode,
            done.stdout + done.stderr,
            report,
        )
    finally:
        server.stop()


def test_the_reference_server_passes_every_experiment_requirement(run: Run) -> None:
    assert run.code == 0, run.output[-3000:]
    outcomes = requirement_outcomes(run.report)
    assert sorted(outcomes) == EXPERIMENT_IDS
    assert {rid: o for rid, o in outcomes.items() if o != "pass"} == {}


def test_every_experiment_requirement_has_a_scenario(run: Run) -> None:
    untested = [r["id"] for r in run.report["requirements"] if not r["tests"]]
    assert untested == []
    for result in run.report["requirements"]:
        assert all(t.startswith("conformance/stages/scenarios/") for t in result["tests"]), result


def test_nothing_the_run_created_is_left_running(run: Run) -> None:
    profile = run.profile
    seen = []
    with httpx.Client(base_url=run.base_url, timeout=10) as http:
        for environment_id in profile.project.environments.values():
            cursor = None
            while True:
                params = {"limit": "100", **({"cursor": cursor} if cursor else {})}
                page = http.get(
                    f"/application/{profile.project.application_id}/v2/experiments",
                    params=params,
                    headers={
                        "Authorization": f"Bearer {profile.credentials.pat}",
                        "environment_id": str(environment_id),
                    },
                ).json()
                seen.extend(page["items"])
                cursor = page.get("nextCursor")
                if not cursor:
                    break
    ours = [e for e in seen if str(e["name"]).startswith("cf-")]
    assert len(ours) > 40  # the run did create experiments ...
    running = [(e["id"], e["name"]) for e in ours if e["status"] != "terminated"]
    assert running == []  # ... and terminated every one of them


def test_the_split_records_its_p_value(run: Run) -> None:
    split = [
        t
        for t in run.report["tests"]
        # under xdist's loadgroup the id carries its group: "...follows_the_weights@production"
        if t["test_id"].split("@")[0].endswith("test_weighted_split_follows_the_weights")
    ]
    assert [t["outcome"] for t in split] == ["pass"]
    details = [s["details"] for s in run.report["stages"] if s["name"] == "scenarios"]
    bucketing = details[0].get("bucketing") if details else None
    assert bucketing is not None, details  # the plugin folds conformance-stage properties in
    assert bucketing["requirement"] == "EXP-WEIGHTED-SPLIT"
    assert 0.001 <= bucketing["p_value"] <= 1
    assert sum(bucketing["observed"]) == bucketing["units"]


def test_session_cleanup_terminates_what_a_test_left_running(reference_server: Any) -> None:
    """The backstop: experiments still live at session end are terminated by ``cleanup``."""
    from conformance.drivers.experiments import Experiments
    from conformance.session.cleanup import Cleanup
    from conformance.traffic.client import Client

    profile = load(reference_server.profile_path)
    cleanup = Cleanup()
    with Client(str(reference_server.base_url), profile, run_prefix="cf-backstop") as client:
        experiments = Experiments(client, cleanup)
        base = experiments.base({"a": 1})
        record = experiments.create_ok("left", base["id"], experiments.groups([[]]))
        assert experiments.status_of(record["id"]) == "running"
        assert [d for d, _ in cleanup.actions] == [f"terminate experiment {record['id']}"]
        cleanup.run()  # the test "forgot" finish(); the session registry steps in
        assert cleanup.problems == []
        assert experiments.status_of(record["id"]) == "terminated"
        assert experiments.registry.live == {}
