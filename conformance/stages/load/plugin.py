"""The load stage's pytest plugin: the fleet its options describe (``fleet_of``). Registered by
``conformance.run.plugin`` for a run that collects the load stage; Locust itself never enters a
pytest process."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.stages.load import DEFAULT_PORT
from conformance.stages.load.engine import Fleet, default_workers


def fleet_of(config: pytest.Config) -> Fleet:
    local = config.getoption("load_workers", None)
    remote = int(config.getoption("load_remote_workers", 0) or 0)
    bind = config.getoption("load_bind", None) or ("*" if remote else "127.0.0.1")
    progress = str(config.getoption("load_progress", "tty") or "tty")
    if progress == "tty":
        progress = _tty_or_stderr()
    log = None
    report_dir = config.getoption("report_dir", None)
    if report_dir:
        Path(report_dir).mkdir(parents=True, exist_ok=True)
        log = Path(report_dir) / "load-progress.txt"
        log.write_text("", "utf-8")
    return Fleet(
        local_workers=default_workers() if local is None else int(local),
        remote_workers=remote,
        port=int(config.getoption("load_port", DEFAULT_PORT) or DEFAULT_PORT),
        bind=bind,
        progress=progress,
        log=log,
    )


def _tty_or_stderr() -> str:
    """The terminal, even from an xdist worker whose output is captured; else stderr."""
    try:
        with open("/dev/tty", "a"):
            return "/dev/tty"
    except OSError:
        return "-"
