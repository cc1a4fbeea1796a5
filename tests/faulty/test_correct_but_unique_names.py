"""Nothing the kit creates collides (issue 37): a correct server that refuses a second create of
a configuration name (per project and environment) or an experiment name (per project) with 409
is found conformant by the whole scenarios stage, with nothing failed and nothing left
unmeasured. Before the kit's names were unique per create, such a server failed 60 requirements."""

from __future__ import annotations

from pathlib import Path

import pytest

from faulty.asgi import FaultyApp
from faulty.unique_names import UniqueNames
from refserver.runner import start_server
from tests.support import suite_run

pytestmark = pytest.mark.long


def test_a_server_holding_names_unique_is_conformant(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    handler = UniqueNames()
    server = start_server(
        tmp_path / "refserver.db", profile_path=profile, wrap=lambda app: FaultyApp(app, handler)
    )
    try:
        report, output = suite_run.certify(server.base_url, profile, tmp_path / "report")
    finally:
        server.stop()
    outcomes = {r["id"]: r["outcome"] for r in report.get("requirements", [])}
    not_passed = {i: o for i, o in outcomes.items() if o not in ("pass", "not-applicable")}
    assert report.get("verdict") == "conformant", (not_passed, output[-3000:])
    assert handler.taken, "no create reached the server"
