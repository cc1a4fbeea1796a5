"""Locust comes with the ``load`` extra: without it, the load stage and ``conformance load-worker``
say in one line what to install and exit 2; the other stages never need it."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.stages.load.engine import INSTALL_LOAD

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
def no_locust(monkeypatch: pytest.MonkeyPatch) -> None:
    """Locust as if not installed (``importlib.util.find_spec`` answers None for it)."""
    monkeypatch.setitem(sys.modules, "locust", None)


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.usefixtures("no_locust")
def test_load_worker_says_what_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["load-worker", "--master", "127.0.0.1:5557"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "needs Locust" in line and INSTALL_LOAD in line


@pytest.mark.usefixtures("no_locust")
def test_the_load_stage_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["run", "--stage", "load", "--quiet", "--report-dir", str(tmp_path)])
    assert status == 2
    line = _one_line(capsys.readouterr().err)
    assert line == (
        "conformance: usage error: the load stage needs Locust, which is not installed: "
        "pip install 'rces-conformance[load]'"
    )
    assert not (tmp_path / "conformance.json").exists()


def test_locust_is_an_extra_and_the_test_extra_brings_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in project["dependencies"] if d.lower().startswith(("locust", "gevent"))]
    extras = project["optional-dependencies"]
    assert any(d.startswith("locust") for d in extras["load"])
    assert f"{project['name']}[load]" in extras["test"]
    assert f"pip install '{project['name']}[load]'" == INSTALL_LOAD
