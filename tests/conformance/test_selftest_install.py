"""``conformance selftest`` outside a source checkout: one clear usage error, exit code 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import conformance


def test_selftest_from_an_installed_copy_says_it_needs_the_checkout(tmp_path: Path) -> None:
    """The package alone (as a wheel installs it: no tests/ beside it) cannot run the catalogue."""
    site = tmp_path / "site-packages"
    shutil.copytree(Path(conformance.__file__).parent, site / "conformance")
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "selftest"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "source checkout" in done.stderr
    assert 'pip install -e ".[test]"' in done.stderr
    assert "Traceback" not in done.stderr
