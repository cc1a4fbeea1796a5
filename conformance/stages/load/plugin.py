"""The load stage's pytest plugin: the fleet its options describe (``fleet_of``). Registered by
``conformance.run.plugin`` for a run that collects the load stage; Locust itself never enters a
pytest process."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from conformance.registry.load import DEFAULT_PORT
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
        port=master_port(config.getoption("load_port", None), remote),
        bind=bind,
        progress=progress,
        log=log,
    )


def master_port(given: object, remote_workers: int) -> int:
    """The master's port: the one asked for; else Locust's own default when workers join from
    other machines (they must know it); else a free one, so that two runs on one machine (a CI
    runner with two jobs) never bind the same port."""
    if given:
        return int(str(given))
    if remote_workers:
        return DEFAULT_PORT
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _tty_or_stderr() -> str:
    """The terminal, even from an xdist worker whose output is captured; else stderr."""
    try:
        with open("/dev/tty", "a"):
            return "/dev/tty"
    except OSError:
        return "-"
