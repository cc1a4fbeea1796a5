"""The embedded target: the reference server on 127.0.0.1 at a free port with a throwaway database.

The only place the suite touches ``refserver``, imported lazily by name inside a function.
"""

from __future__ import annotations

import importlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from conformance.errors import UsageError

RUNNER_MODULE = "refserver.runner"


class Stoppable(Protocol):
    """What the suite uses of ``refserver.runner.RunningServer`` (never imported by type)."""

    def stop(self) -> None: ...


@dataclass
class EmbeddedServer:
    base_url: str
    profile_path: Path
    _server: Stoppable
    _workdir: Path | None

    def stop(self) -> None:
        try:
            self._server.stop()
        finally:
            if self._workdir is not None:
                shutil.rmtree(self._workdir, ignore_errors=True)
                self._workdir = None


def start_embedded(db_path: Path | None = None) -> EmbeddedServer:
    """Start the reference server on a free loopback port; stop() removes its throwaway data."""
    try:
        runner = importlib.import_module(RUNNER_MODULE)
    except ImportError as error:
        raise UsageError(
            f"the embedded reference server is not available ({error})",
            "install the kit with its reference server, or pass --base-url and a profile",
        ) from None
    workdir = None
    if db_path is None:
        workdir = Path(tempfile.mkdtemp(prefix="rces-embedded-"))
        db_path = workdir / "refserver.db"
    try:
        # Warnings would interleave with the run's own output: the fuzz engine's probes are
        # malformed on purpose (a NUL byte in a header), and uvicorn warns of each.
        server = runner.start_server(db_path, port=0, host="127.0.0.1", log_level="error")
    except BaseException:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
        raise
    return EmbeddedServer(
        base_url=str(server.base_url).rstrip("/"),
        profile_path=Path(server.profile_path),
        _server=server,
        _workdir=workdir,
    )
