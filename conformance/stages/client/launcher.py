"""Starting and stopping one client instance: the ``RCES_*`` environment contract, no shell,
SIGTERM then SIGKILL to the process group it started, its output captured with the key redacted.

The contract (docs/client-stage.md): RCES_BASE_URL, RCES_SDK_KEY, RCES_INSTANCE_ID,
RCES_ENVIRONMENT, RCES_SCENARIO, RCES_TIME_SCALE, RCES_HASH_TRANSPORT, RCES_JITTER_READING,
RCES_PROJECT_ID.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO

from conformance.errors import UsageError
from conformance.stages.client.recording import KEY_PLACEHOLDER
from conformance.stages.client.settings import ClientSettings

GRACE_S = 3.0  # after SIGTERM, before SIGKILL
PROJECT_ID = 1  # the numeric header's value a client may send (judged within the spec's bounds)
OUTPUT_TAIL = 2000  # characters of output kept as evidence


def contract_env(
    settings: ClientSettings, base_url: str, key: str, instance_id: str, scenario: str
) -> dict[str, str]:
    """The variables a client under test is started with."""
    return {
        "RCES_BASE_URL": base_url,
        "RCES_SDK_KEY": key,
        "RCES_INSTANCE_ID": instance_id,
        "RCES_ENVIRONMENT": "development",
        "RCES_SCENARIO": scenario,
        "RCES_TIME_SCALE": f"{settings.time_scale:g}",
        "RCES_HASH_TRANSPORT": settings.hash_transport,
        "RCES_JITTER_READING": settings.jitter_reading,
        "RCES_PROJECT_ID": str(PROJECT_ID),
    }


@dataclass
class Launched:
    """One running (or finished) client instance."""

    name: str
    process: subprocess.Popen[bytes]
    started: float  # monotonic
    output: IO[bytes] = field(repr=False)
    key: str = field(repr=False)
    exit_status: int | None = None
    exited_early: bool = False  # ended on its own before the stage stopped it
    stopped_at: float | None = None
    killed: bool = False
    text: str = field(default="", repr=False)

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL after the grace period; output collected."""
        if self.stopped_at is not None:
            return
        self.stopped_at = time.monotonic()
        if self.process.poll() is None:
            _signal(self.process, signal.SIGTERM)
            try:
                self.process.wait(GRACE_S)
            except subprocess.TimeoutExpired:
                _signal(self.process, signal.SIGKILL)
                self.killed = True
                self.process.wait(GRACE_S)
        else:
            self.exited_early = True
        self.exit_status = self.process.returncode
        self.output.seek(0)
        raw = self.output.read().decode("utf-8", "replace")
        self.output.close()
        self.text = raw.replace(self.key, KEY_PLACEHOLDER) if self.key else raw

    def tail(self) -> str:
        return self.text[-OUTPUT_TAIL:]


def launch(settings: ClientSettings, name: str, env: dict[str, str], key: str) -> Launched:
    """Start one instance; a command that cannot be executed is a usage error."""
    output = tempfile.TemporaryFile()  # noqa: SIM115 (kept by Launched, closed by stop)
    try:
        process = subprocess.Popen(
            list(settings.command),
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a wrapper's children stop with it
        )
    except (OSError, ValueError) as error:
        output.close()
        raise UsageError(
            f"cannot start the client command {settings.command[0]!r}: {error}",
            "pass --command with an executable (the command is run without a shell)",
        ) from None
    return Launched(name, process, time.monotonic(), output, key)


def _signal(process: subprocess.Popen[bytes], signum: int) -> None:
    """Signal the process group the launcher created (only that group, by its id)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)
