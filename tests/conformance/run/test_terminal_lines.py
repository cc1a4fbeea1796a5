"""What ``conformance run`` prints, counted: each failure in one screen, each run line once."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.conformance_cli import run_conformance
from tests.support.profiles import with_overrides

pytestmark = pytest.mark.timing  # its long tests are judged by the clock: one at a time

SCREEN_LINES = 12  # a failure's block, its header and its summary line, at most
COLUMNS = 120  # a terminal this wide (longer lines wrap)


def declared_wrongly(server: Any, folder: Path, overrides: dict[str, object]) -> Path:
    """The server's own profile with ``overrides``: keys its answers do not match."""
    profile = folder / "profile.yaml"
    shutil.copy(server.profile_path, profile)
    with_overrides(profile, overrides)
    return profile


def run(
    server: Any, profile: Path, folder: Path, *args: str, ci: str = ""
) -> subprocess.CompletedProcess[str]:
    """``conformance run`` against ``server``; ``ci``: the ``CI`` variable a CI runner sets
    (pytest prints whole failure messages in its short summary there)."""
    return run_conformance(
        "run",
        "--base-url",
        server.base_url,
        "--profile",
        str(profile),
        "--report-dir",
        str(folder / "reports"),
        *args,
        timeout=300,
        env={"CI": ci},
    )


def failure_screens(output: str) -> dict[str, int]:
    """Terminal lines (wrapped at ``COLUMNS``) each failure takes: its block under its
    ``___ name ___`` header, and its entry in the short summary (its ``FAILED`` line and any
    line of its message after it)."""
    lines = output.splitlines()
    screens: dict[str, int] = {}
    name = ""
    for line in lines:
        rows = max(1, math.ceil(len(line) / COLUMNS))
        if line.startswith("__") and line.endswith("__"):
            name = line.strip("_ ")
            screens[name] = rows
        elif line.startswith(("==", "FAILED ", "conformance: ")):
            name = ""
        elif name:
            screens[name] += rows
    summary = ""  # the failure whose short-summary entry is being read (lines after FAILED too)
    for line in lines:
        if line.startswith("FAILED "):
            summary = line.split("::")[-1].split(" ")[0].split("@")[0]
        elif line.startswith(("==", "conformance: ")) or not line.strip():
            summary = ""
        if summary in screens:
            screens[summary] += max(1, math.ceil(len(line) / COLUMNS))
    return screens


@pytest.mark.parametrize("ci", ["", "true"], ids=["terminal", "ci-runner"])
def test_a_failing_run_shows_each_failure_in_one_screen_and_each_line_once(
    reference_server: Any, tmp_path: Path, ci: str
) -> None:
    profile = declared_wrongly(
        reference_server, tmp_path, {"statuses": {"create_configuration": 200}}
    )
    done = run(
        reference_server,
        profile,
        tmp_path,
        "--requirements",
        "CFG-CREATE-RECORD-SHAPE,CFG-CREATE-NEW-ID",
        "--workers",
        "2",  # asked for: xdist's status line shows
        ci=ci,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    screens = failure_screens(output)
    assert screens and all(n <= SCREEN_LINES for n in screens.values()), (screens, output)
    assert "def expect" not in output and "raise violation" not in output
    assert output.count("bringing up nodes") == 1, output
    verdicts = [line for line in output.splitlines() if "conformance: not-conformant" in line]
    assert len(verdicts) == 1, output
    assert "reports in" in verdicts[0] and " in " in verdicts[0]


def test_a_run_of_a_few_tests_starts_no_workers(reference_server: Any, tmp_path: Path) -> None:
    profile = declared_wrongly(reference_server, tmp_path, {})
    done = run(reference_server, profile, tmp_path, "--requirements", "VER-PATH-V2")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "bringing up nodes" not in output and "[gw" not in output, output


@pytest.mark.long  # about a minute: the rate-limit drains, judged after every other test
def test_a_declared_burst_the_server_does_not_have_fails_in_one_screen_each(
    reference_server: Any, tmp_path: Path
) -> None:
    """The issue's case: a burst of 30 declared, the reference server's 60 real."""
    profile = declared_wrongly(reference_server, tmp_path, {"rate_limit": {"burst": 30}})
    ids = "LIMIT-RATE-ENFORCED,LIMIT-RATE-SHARED-WITHOUT-ID,LIMIT-RATE-PER-INSTANCE"
    done = run(reference_server, profile, tmp_path, "--requirements", ids, ci="true")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    screens = failure_screens(output)
    assert screens and all(n <= SCREEN_LINES for n in screens.values()), (screens, output)
