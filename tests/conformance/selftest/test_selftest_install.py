"""``conformance selftest`` as a user runs it: outside a source checkout one clear usage error
(exit 2), whichever side; an unknown name one usage error too; and real runs of one fault of the
client, load and variants catalogues, with the progress lines and the score table."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import conformance
from conformance.catalogue.requirements import load_catalogue
from tests.support.conformance_cli import run_conformance

CHECKOUT = Path(conformance.__file__).resolve().parent.parent


def _selftest(
    cwd: Path, *argv: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return run_conformance("selftest", *argv, timeout=timeout, cwd=cwd, env=env)


@pytest.mark.parametrize(
    "argv",
    [(), ("--side", "client"), ("--side", "load", "--only", "x"), ("--side", "variants")],
)
def test_selftest_from_an_installed_copy_says_it_needs_the_checkout(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    """The package alone (as a wheel installs it: no tests/ beside it) cannot run a catalogue."""
    site = tmp_path / "site-packages"
    shutil.copytree(Path(conformance.__file__).parent, site / "conformance")
    done = _selftest(tmp_path, *argv, env={"PYTHONPATH": str(site)})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "source checkout" in done.stderr
    assert 'pip install -e ".[test]"' in done.stderr
    assert "Traceback" not in done.stderr
    assert "started" not in done.stdout  # refused before any side runs


def test_an_option_for_another_side_is_refused_before_anything_runs(tmp_path: Path) -> None:
    done = _selftest(tmp_path, "--side", "client", "--full")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--full applies to the server side, not to --side client" in done.stderr
    assert done.stdout == ""


def test_an_unknown_name_is_a_usage_error(tmp_path: Path) -> None:
    done = _selftest(tmp_path, "--side", "client", "--only", "no-such-client", "-n", "1")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "names no client variant called no-such-client" in done.stdout
    assert "the client catalogue could not be collected with this selection" in done.stderr


def _row(stdout: str, side: str) -> list[str]:
    lines = [line for line in stdout.splitlines() if line.strip().startswith(f"{side} ")]
    assert lines, stdout
    return re.split(r"\s{2,}", lines[-1].strip())


def _assert_one_side_ran(done: subprocess.CompletedProcess[str], side: str, fault: str) -> None:
    out = done.stdout
    assert done.returncode == 0, out[-4000:] + done.stderr[-2000:]
    assert re.search(rf"\[1/1\] {side} side \(.*\): started at \d\d:\d\d:\d\d", out), out
    assert re.search(rf"\[1/1\] {side} side finished in \d+s: 1/1 faults caught exactly", out)
    row = _row(out, side)
    assert row[:5] == [side, "1", "1 (100%)", "0", "0"], row
    assert "longest" in out and f"({fault})" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith(
        f"conformance selftest: 1 of 1 faults caught exactly; 0 of 0 variants passed exactly "
        f"({side} 1/1) in "
    ), last


def test_one_client_fault_end_to_end(tmp_path: Path) -> None:
    """The fastest faulty client (it exits after a second): about 10 s."""
    done = _selftest(tmp_path, "--side", "client", "--only", "exits-early", "-n", "1")
    _assert_one_side_ran(done, "client", "exits-early")
    clients = sum(1 for r in load_catalogue() if r.subject == "client")
    assert _row(done.stdout, "client")[7] == f"{clients}/{clients}"  # it breaks every one


@pytest.mark.long
@pytest.mark.timing  # a load stage or a whole run compared: one at a time
def test_one_load_fault_end_to_end(tmp_path: Path) -> None:
    """One load fault: a whole load-stage run, about 40 s (long tier)."""
    done = _selftest(tmp_path, "--side", "load", "--only", "hint-only-after-5xx", timeout=600)
    _assert_one_side_ran(done, "load", "hint-only-after-5xx")
    assert _row(done.stdout, "load")[7] == "1/18"  # the load stage judges 18 requirements


def test_one_correct_variant_end_to_end(tmp_path: Path) -> None:
    """One correct-but-different server (a created configuration answered 200, undeclared):
    one narrowed scenarios run, about 10 s; it passes exactly, and the score says so."""
    done = _selftest(
        tmp_path, "--side", "variants", "--only", "create-status-200", "-n", "1", timeout=300
    )
    out = done.stdout
    assert done.returncode == 0, out[-4000:] + done.stderr[-2000:]
    assert re.search(
        r"\[1/1\] variants side finished in \d+s: 1/1 correct variants passed$", out, re.M
    )
    assert _row(out, "variants")[:7] == ["variants", "0", "0", "0", "0", "1", "1 (100%)"]
    assert "variants: correct-but-different variants passed 1/1" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith(
        "conformance selftest: 0 of 0 faults caught exactly; 1 of 1 variants passed exactly "
        "(variants 1/1 variants) in "
    ), last
