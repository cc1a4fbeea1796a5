"""Running the fleet: a Locust master and its local workers as child processes, and a worker that
joins a master elsewhere (``conformance load-worker``). Never imports Locust itself (gevent's
patching stays in those processes); reads the master's result file when it quits.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from conformance.errors import UsageError
from conformance.registry.declaration import Values
from conformance.registry.load import DEFAULT_PORT
from conformance.session import stop_signals
from conformance.stages.load.plan import DRAIN_SECONDS, Plan
from conformance.stages.load.records import Results

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
START_GRACE_S = 60.0  # workers to connect and the fleet to spawn, beyond the plan's own time
SIGNALLED_GRACE_S = 3.0  # a master that had the stop signal too, to write its result and quit
STOP_GRACE_S = 10.0  # a master told to stop, to write what it received and quit


@dataclass(frozen=True)
class Fleet:
    """How the fleet runs: local worker processes, workers expected from elsewhere, the port."""

    local_workers: int
    remote_workers: int = 0
    port: int = DEFAULT_PORT
    bind: str = "127.0.0.1"  # where the master listens; "*" when workers join from elsewhere
    progress: str = "-"  # where progress lines go: a path (the terminal), "-" stderr, "" none
    log: Path | None = None  # a file that keeps them too (the report directory's), to tail -f

    @property
    def workers(self) -> int:
        return self.local_workers + self.remote_workers


def default_workers() -> int:
    """One local worker per core."""
    return max(1, os.cpu_count() or 1)


# Locust (and gevent with it) comes with an extra: a gate that runs other stages installs less.
INSTALL_LOAD = "pip install 'rces-conformance[load]'"


def require_locust() -> None:
    """A usage error, in one line, when Locust is not installed where the fleet would run."""
    if importlib.util.find_spec("locust") is None:
        raise UsageError(f"the load stage needs Locust, which is not installed: {INSTALL_LOAD}")


def locust_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), *args]


def worker_command(master: str) -> list[str]:
    host, _, port = master.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--master {master!r} is not HOST:PORT", "e.g. --master 10.0.0.5:5557")
    return locust_command("--worker", "--master-host", host, "--master-port", port)


def _quiet_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(extra)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class _Progress:
    """Relays the master's progress lines to the terminal (a tty path) or to stderr ("-")."""

    def __init__(self, source: Path, destination: str) -> None:
        self.source, self.destination, self.offset = source, destination, 0
        self.out: TextIO | None = None

    def __enter__(self) -> _Progress:
        if self.destination not in ("-", ""):
            try:
                self.out = open(self.destination, "a", encoding="utf-8")
            except OSError:
                self.out = None
        return self

    def relay(self) -> None:
        try:
            with self.source.open("rb") as file:
                file.seek(self.offset)
                chunk = file.read()
        except OSError:
            return
        text = chunk[: chunk.rfind(b"\n") + 1].decode("utf-8", "replace")
        self.offset += len(text.encode())
        if text and self.destination:
            out = self.out or sys.__stderr__ or sys.stderr
            out.write(text)
            out.flush()

    def __exit__(self, *_: object) -> None:
        self.relay()
        if self.out is not None:
            self.out.close()


def _stopped(processes: list[subprocess.Popen[bytes]], result_path: Path) -> Results:
    """The fleet stopped by a signal: the master quits as on Ctrl-C (on the process group's
    signal, else on ours) and writes what the workers sent so far; that result, marked stopped.
    The workers are stopped with the master (``run_fleet``'s clean-up)."""
    stop_signals.finishing()  # a further signal must not cut the master's result short
    stop = stop_signals.stopped()
    at = time.time()
    master = processes[0]
    with contextlib.suppress(subprocess.TimeoutExpired):  # it had the process group's signal
        master.wait(timeout=SIGNALLED_GRACE_S)
    if master.poll() is None:  # the signal was ours alone: pass it on
        master.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            master.wait(timeout=STOP_GRACE_S)
    try:
        results = Results.load(result_path)
    except (OSError, ValueError, KeyError, TypeError):
        results = Results(started=0.0)
    results.stopped = stop.name if stop is not None else "KeyboardInterrupt"
    results.stopped_at = at
    return results


def run_fleet(plan: Plan, fleet: Fleet, workdir: Path | None = None) -> Results:
    require_locust()
    """Run the plan on a master and ``fleet.local_workers`` local workers; the master's results.

    A master that does not finish within the plan's time plus ``START_GRACE_S`` is stopped and
    is a usage problem of the generator (workers missing), never a verdict on the target. A stop
    signal (``KeyboardInterrupt``) while the fleet runs stops it and returns what the master
    received so far, with ``Results.stopped`` set."""
    if fleet.workers < 1:
        raise UsageError("the load stage needs at least one worker", "pass --load-workers 1")
    own = workdir is None
    where = Path(tempfile.mkdtemp(prefix="rces-load-")) if workdir is None else workdir
    plan_path = where / "plan.json"
    result_path = where / "result.json"
    fd = os.open(plan_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(plan.to_json())
    env = _quiet_env(
        {
            "RCES_LOAD_PLAN": str(plan_path),
            "RCES_LOAD_RESULT": str(result_path),
            "RCES_LOAD_PROGRESS": str(fleet.log or where / "progress.log"),
        }
    )
    master_args = [
        "--master",
        "--headless",
        "--expect-workers",
        str(fleet.workers),
        "--master-bind-host",
        fleet.bind,
        "--master-bind-port",
        str(fleet.port),
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--exit-code-on-error",
        "0",
    ]
    logs = [open(where / "master.log", "wb")]  # noqa: SIM115
    processes: list[subprocess.Popen[bytes]] = []
    try:
        processes.append(
            subprocess.Popen(locust_command(*master_args), env=env, stdout=logs[0], stderr=logs[0])
        )
        worker_env = _quiet_env({})
        for index in range(fleet.local_workers):
            logs.append(open(where / f"worker-{index}.log", "wb"))  # noqa: SIM115
            processes.append(
                subprocess.Popen(
                    worker_command(f"127.0.0.1:{fleet.port}"),
                    env=worker_env,
                    stdout=logs[-1],
                    stderr=logs[-1],
                )
            )
        deadline = time.monotonic() + plan.run_s + DRAIN_SECONDS + START_GRACE_S
        master = processes[0]
        with _Progress(fleet.log or where / "progress.log", fleet.progress) as progress:
            try:
                while master.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.2)
                    progress.relay()
            except KeyboardInterrupt:  # SIGINT or SIGTERM (stop_signals): keep what it measured
                return _stopped(processes, result_path)
        if master.poll() is None:
            raise UsageError(
                f"the load generator did not finish ({fleet.workers} workers expected on port "
                f"{fleet.port}; {len(processes) - 1} started here)",
                "start the remote workers with conformance load-worker --master HOST:PORT",
            )
        if not result_path.exists():
            raise UsageError(
                f"the load generator failed: {failure_line(where / 'master.log')}",
                f"its log is {where / 'master.log'}"
                if not own
                else "pass --load-port PORT to choose the master's port",
            )
        return Results.load(result_path)
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()
        plan_path.unlink(missing_ok=True)
        if own:
            shutil.rmtree(where, ignore_errors=True)


def failure_line(log: Path) -> str:
    """The one line that says why Locust stopped (its last error line), never its traceback."""
    try:
        lines = log.read_bytes()[-20_000:].decode("utf-8", "replace").splitlines()
    except OSError:
        return "no log"
    errors = [line.strip() for line in lines if re.search(r"(Error|Exception)\b", line)]
    picked = (
        errors[-1] if errors else next((ln.strip() for ln in reversed(lines) if ln.strip()), "")
    )
    return picked[:300] or "it exited without a word"


def check_options(values: Values) -> None:
    """The stage's options together (``Stage.check_options``): Locust installed, and at least
    one worker."""
    require_locust()
    local, remote = values.get("load_workers"), values.get("load_remote_workers")
    local_n = local if isinstance(local, int) else None
    remote_n = remote if isinstance(remote, int) else 0
    if (local_n is not None and local_n < 0) or remote_n < 0 or (local_n == 0 and not remote_n):
        raise UsageError(
            "the load stage needs at least one Locust worker",
            "pass --load-workers N (N >= 1), or --load-remote-workers M with workers joining",
        )
