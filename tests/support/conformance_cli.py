"""The ``conformance`` CLI in a child process, as a user runs it: the one way the tests start it.

``conformance_command(*args)`` is the command line (this interpreter, ``-m conformance.cli``),
``child_env(**extra)`` the child's environment (ours, ``extra`` over it, and no bytecode written
into the checkout that other runs read at the same time), ``run_conformance(*args, ...)`` runs it
to its end and ``start_conformance(*args, ...)`` starts it without waiting.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def conformance_command(*args: str) -> list[str]:
    """``conformance ARGS`` as a command line for this interpreter."""
    return [sys.executable, "-m", "conformance.cli", *args]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child run: this one, ``extra`` over it, no bytecode written, and no
    CI job summary (a test's run is not the job's: ``GITHUB_STEP_SUMMARY`` only when given)."""
    quiet = {"GITHUB_STEP_SUMMARY": ""}
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **quiet, **extra}


def run_conformance(
    *args: str, timeout: float, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``conformance ARGS`` to its end, its output captured as text; the exit status is the
    caller's to judge (never raised). ``env``: variables over ``child_env()``."""
    return subprocess.run(
        conformance_command(*args),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=child_env(**(env or {})),
        check=False,
    )


def start_conformance(
    *args: str,
    cwd: Path,
    stdin: int | None = None,
    start_new_session: bool = False,
    preexec_fn: Callable[[], object] | None = None,
) -> subprocess.Popen[str]:
    """``conformance ARGS`` started, not awaited: its output and errors on one text pipe. The
    rest as ``subprocess.Popen`` takes them (a session of its own for a run to be signalled)."""
    return subprocess.Popen(
        conformance_command(*args),
        cwd=cwd,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=start_new_session,
        preexec_fn=preexec_fn,
        env=child_env(),
    )
