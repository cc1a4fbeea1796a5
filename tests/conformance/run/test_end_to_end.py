"""End to end: ``conformance run`` certifies the embedded server, and ``refserver serve`` started
by hand and reached through --base-url and its profile gives the same result. Real processes,
real sockets on 127.0.0.1, real SQLite files."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.conformance_cli import run_conformance
from tests.support.report_outcomes import requirement_outcomes, written_report

SERVE_TIMEOUT = 20.0
RUN_TIMEOUT = 300.0


def conformance(*args: str, timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess[str]:
    return run_conformance(*args, timeout=timeout)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``refserver serve`` as a subprocess on a free port: (base URL, profile path).

    Its output goes to a file (a pipe nobody drains would fill up and stall the server)."""
    folder = tmp_path_factory.mktemp("served")
    log = folder / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "refserver.cli",
                "serve",
                "--db",
                str(folder / "db.sqlite"),
                "--port",
                "0",
                "--log-level",
                "warning",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        url = profile = None
        deadline = time.monotonic() + SERVE_TIMEOUT
        while (url is None or profile is None) and time.monotonic() < deadline:
            text = log.read_text()
            if match := re.search(r"profile written to (\S+)", text):
                profile = Path(match.group(1))
            if match := re.search(r"(http://127\.0\.0\.1:\d+)", text):
                url = match.group(1)
            time.sleep(0.1)
        assert url and profile, f"refserver serve did not announce itself: {log.read_text()}"
        yield url, profile
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def outcomes(report_dir: Path) -> tuple[str, dict[str, str]]:
    report = written_report(report_dir)
    return report["verdict"], requirement_outcomes(report)


@pytest.mark.long
@pytest.mark.timing  # a load stage or a whole run compared: one at a time
def test_embedded_and_served_reference_give_the_same_result(
    tmp_path: Path, served: tuple[str, Path]
) -> None:
    url, profile = served
    external = conformance(
        "run",
        "--base-url",
        url,
        "--profile",
        str(profile),
        "--report-dir",
        str(tmp_path / "external"),
        "--quiet",
    )
    assert external.returncode == 0, external.stdout[-3000:] + external.stderr[-2000:]
    embedded = conformance("run", "--report-dir", str(tmp_path / "embedded"), "--quiet")
    assert embedded.returncode == 0, embedded.stdout[-3000:] + embedded.stderr[-2000:]
    verdict_external, by_id_external = outcomes(tmp_path / "external")
    verdict_embedded, by_id_embedded = outcomes(tmp_path / "embedded")
    assert verdict_external == verdict_embedded == "conformant"
    assert by_id_external == by_id_embedded
    assert "conformance: conformant" in external.stdout
    # One run writes all five outputs, and no credential of the profile appears in any file.
    written = tmp_path / "external"
    for name in ("conformance.json", "conformance.md", "conformance.html", "junit.xml"):
        assert (written / name).is_file(), name
    assert list((written / "allure-results").glob("*-result.json")), "no Allure results"
    secrets = [
        word.strip("{},")
        for line in profile.read_text().splitlines()
        if "key:" in line or "pat:" in line
        for word in line.split()
        if word.strip("{},").startswith(("svc_", "sdk_"))
    ]
    assert secrets, "the served profile's credentials were not found"
    for path in written.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            for secret in secrets:
                assert secret not in text, f"{path.name} leaks a credential"


def test_base_url_without_profile_exits_2(served: tuple[str, Path]) -> None:
    result = conformance("run", "--base-url", served[0], timeout=60)
    assert result.returncode == 2
    assert "without a target profile" in result.stderr
    assert "What to do" in result.stderr


def test_unreachable_target_exits_2(
    served: tuple[str, Path], tmp_path: Path, closed_port_url: str
) -> None:
    result = conformance(
        "run", "--base-url", closed_port_url, "--profile", str(served[1]), timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.count("cannot reach the target") == 1
    assert not (tmp_path / "reports").exists()


def test_bad_workers_and_no_command_exit_2() -> None:
    assert conformance("run", "--workers", "many", timeout=60).returncode == 2
    bare = conformance(timeout=60)
    assert bare.returncode == 2
    assert "examples:" in bare.stdout


def test_selected_requirements_only(tmp_path: Path, served: tuple[str, Path]) -> None:
    url, profile = served
    result = conformance(
        "run",
        "--base-url",
        url,
        "--profile",
        str(profile),
        "-n",
        "0",
        "--requirements",
        "SDK-STATUS-304-IF-NONE-MATCH,VER-PATH-V2",
        "--report-dir",
        str(tmp_path),
        "--quiet",
    )
    assert result.returncode == 0, result.stdout[-2000:]
    verdict, by_id = outcomes(tmp_path)
    assert by_id == {"SDK-STATUS-304-IF-NONE-MATCH": "pass", "VER-PATH-V2": "pass"}
    assert verdict == "conformant"
