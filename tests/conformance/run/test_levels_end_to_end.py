"""Two levels over real sockets: a server that fills two gaps its own way (200 on create, the
error code under ``code``) is conformant to the interface when its profile leaves those keys at
their defaults, with both departures listed as drop-in differences; the same server fails when
its profile declares the conventions (``conventions: production``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from refserver.runner import RunningServer, start_server
from tests.support.conformance_cli import run_conformance

TESTS = str(Path(__file__).resolve().parents[2])
if TESTS not in sys.path:  # tests/faulty holds the ASGI plumbing of the one-defect servers
    sys.path.append(TESTS)

from faulty.asgi import FaultyApp, Request, Response  # noqa: E402
from faulty.recipes import CREATE, EXP_LIST, chain, edit_json, edit_response  # noqa: E402

from tests.support.report_outcomes import requirement_outcomes  # noqa: E402

IDS = ("CFG-CREATE-RECORD-SHAPE", "CFG-CREATE-MINIMAL-BODY", "ERR-BODY-SHAPE")
DIFFERING = {"statuses.create_configuration", "errors.code_field"}


def _created_200(request: Request, response: Response) -> Response:
    return response.replace(status=200) if response.status == 201 else response


def _code_field(request: Request, response: Response) -> Response:
    data = response.json() if response.status >= 400 else None
    if isinstance(data, dict) and "errorCode" in data:
        data = {"code": data.pop("errorCode"), **data}
        return response.with_json(data)
    return response


def _everything(request: Request) -> bool:
    return True


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, Path]]:
    work = tmp_path_factory.mktemp("levels")
    profile = work / "profile.yaml"
    handler = chain(
        edit_response(CREATE, _created_200),
        edit_response(_everything, _code_field),
        edit_json(EXP_LIST, lambda data, request: {"data": data.pop("items", []), **data}),
    )
    running = start_server(
        work / "refserver.db",
        profile_path=profile,
        wrap=lambda app: FaultyApp(app, handler),  # type: ignore[arg-type]
    )
    try:
        yield running, profile
    finally:
        running.stop()


def _run(
    server: tuple[RunningServer, Path],
    tmp: Path,
    *extra: str,
    ids: tuple[str, ...] = IDS,
    **profile_keys: Any,
) -> tuple[int, Any]:
    running, written = server
    data = yaml.safe_load(written.read_text(encoding="utf-8"))
    for key in ("conventions", "errors", "statuses"):  # the choices the server departs from
        data.pop(key, None)
    data.update(profile_keys)
    tmp.mkdir(parents=True, exist_ok=True)
    profile = tmp / "profile.yaml"
    profile.write_text(yaml.safe_dump(data), encoding="utf-8")
    done = run_conformance(
        "run",
        "--base-url",
        running.base_url,
        "--profile",
        str(profile),
        "--requirements",
        ",".join(ids),
        "--workers",
        "0",
        "--quiet",
        "--report-dir",
        str(tmp / "report"),
        *extra,
        timeout=300,
    )
    report = json.loads((tmp / "report" / "conformance.json").read_text(encoding="utf-8"))
    return done.returncode, report


def test_departures_from_undeclared_conventions_are_drop_in_differences(
    server: tuple[RunningServer, Path], tmp_path: Path
) -> None:
    code, report = _run(server, tmp_path)
    outcomes = requirement_outcomes(report)
    assert outcomes == dict.fromkeys(IDS, "pass"), outcomes
    assert report["levels"] == {"interface": "conformant", "drop_in": "not-conformant"}
    assert {d["key"] for d in report["differences"]} == DIFFERING
    assert code == 0


def test_the_drop_in_level_gates_when_asked(
    server: tuple[RunningServer, Path], tmp_path: Path
) -> None:
    code, report = _run(server, tmp_path, "--level", "drop-in")
    assert report["levels"] == {"interface": "conformant", "drop_in": "not-conformant"}
    assert code == 1
    (tmp_path / "report" / "conformance.md").unlink()
    done = run_conformance("report", str(tmp_path / "report"), timeout=60)  # from the JSON alone
    assert done.returncode == 0, done.stderr
    markdown = (tmp_path / "report" / "conformance.md").read_text(encoding="utf-8")
    assert "not drop-in compatible: 2 conventions differ" in markdown


def test_declared_conventions_are_judged_at_the_interface_level(
    server: tuple[RunningServer, Path], tmp_path: Path
) -> None:
    code, report = _run(server, tmp_path, conventions="production")
    outcomes = requirement_outcomes(report)
    assert outcomes["CFG-CREATE-RECORD-SHAPE"] == "fail"
    assert outcomes["ERR-BODY-SHAPE"] == "fail"
    assert report["differences"] == []
    assert code == 1


def test_a_list_under_another_undeclared_name_is_judged_in_the_targets_own_name(
    server: tuple[RunningServer, Path], tmp_path: Path
) -> None:
    """Observed before the tests (``conformance.drivers.observation``): the list's one array is
    under ``data``, so EXP-LIST is judged there, and the departure is listed; declared, the
    convention's name is held and the list fails."""
    code, report = _run(server, tmp_path, ids=("EXP-LIST",))
    (listed,) = report["requirements"]
    assert listed["outcome"] == "pass", listed
    (difference,) = report["differences"]
    assert difference["key"] == "experiment_payload.items"
    assert "'data'" in difference["received"]
    assert code == 0
    code, report = _run(server, tmp_path / "declared", ids=("EXP-LIST",), conventions="production")
    assert report["requirements"][0]["outcome"] == "fail"
    assert code == 1


def _no_retry_after(request: Request, response: Response) -> Response:
    return response.with_header("retry-after", None)


def test_plain_pytest_shows_a_drop_in_difference_as_a_skip(tmp_path: Path) -> None:
    """Plain pytest, the plugin's own run, against a server whose 429s say no Retry-After (a
    convention the profile leaves undeclared): the test whose only failure is that convention
    is no pytest failure (the exit says the interface holds), and its skip says why."""
    written = tmp_path / "profile.yaml"
    running = start_server(
        tmp_path / "refserver.db",
        profile_path=written,
        wrap=lambda app: FaultyApp(app, edit_response(_everything, _no_retry_after)),  # type: ignore[arg-type]
    )
    try:
        data = yaml.safe_load(written.read_text(encoding="utf-8"))
        data.pop("conventions", None)
        written.write_text(yaml.safe_dump(data), encoding="utf-8")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--pyargs",
                "conformance.stages.scenarios",
                "--base-url",
                running.base_url,
                "--target-profile",
                str(written),
                "--requirements",
                "LIMIT-RATE-429-RETRY-AFTER",
                "-p",
                "no:randomly",
                "-p",
                "no:xdist",
                "-rs",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            check=False,
        )
    finally:
        running.stop()
    assert done.returncode == 0, done.stdout[-3000:]
    assert "FAILED" not in done.stdout
    assert "drop-in difference (a convention the profile does not declare:" in done.stdout
    assert "rate_limit.retry_after" in done.stdout
