"""Stopping a run with SIGINT or SIGTERM: every stage ends within seconds, its reports written.

Real processes, real signals, real sockets: each run is ``python -m conformance.cli`` in a session
of its own (as CI starts it), signalled as a whole process group once it has measured something,
and must exit promptly with exit status 3 and every report saying incomplete.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.report.writer import write_whole
from conformance.run import launch
from conformance.session import stop_signals
from conformance.verdict.run_verdict import Verdict
from tests.support.conformance_cli import start_conformance
from tests.support.ports import free_port

pytestmark = pytest.mark.timing  # its long tests are judged by the clock: one at a time

STOP_BOUND_S = 15.0  # from the signal to the exit, on a loaded machine; it takes 2-5 s
START_TIMEOUT_S = 120.0  # for a run to start measuring
JUDGED = {"pass", "fail", "known-failure", "spec-doubt"}
RUN_FILES = ("conformance.json", "conformance.md", "conformance.html", "junit.xml")
# SIGTERM in the quick tier (about 12 s a stage); SIGINT takes the same path after the handler,
# in the long tier.
pytest_plugins = ("pytester",)

SIGNALS = [
    pytest.param(signal.SIGINT, id="SIGINT", marks=pytest.mark.long),
    pytest.param(signal.SIGTERM, id="SIGTERM"),
]


def as_ci_starts_it() -> None:
    """In the child before exec: SIGINT not ignored even if this test run inherited it ignored (a
    non-interactive shell's ``cmd &``); a run keeps a signal ignored at its start on purpose."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Run:
    """One ``conformance`` command in its own session; its output read line by line."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        self.process = start_conformance(
            *args,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, as CI and ``timeout`` start it
            preexec_fn=as_ci_starts_it,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def _drain(self) -> None:
        while True:
            try:
                self.output.append(self.lines.get_nowait())
            except queue.Empty:
                return

    def text(self) -> str:
        self._drain()
        return "".join(self.output)

    def wait_until(self, ready: Callable[[Run], bool], what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready(self):
            assert self.process.poll() is None, f"ended before {what}:\n{self.text()[-3000:]}"
            assert time.monotonic() < deadline, f"no {what} in time:\n{self.text()[-3000:]}"
            time.sleep(0.1)

    def stop(self, signum: int) -> float:
        """Signal the whole process group; seconds until the command exited."""
        sent = time.monotonic()
        os.killpg(self.process.pid, signum)
        try:
            self.process.wait(timeout=STOP_BOUND_S * 4)
        finally:
            took = time.monotonic() - sent
            self.reader.join(timeout=5)
        return took

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    started: list[Run] = []
    yield started
    for run in started:
        run.kill()


def line_matches(*words: str) -> Callable[[Run], bool]:
    return lambda run: any(word in run.text() for word in words)


def group_members(pgid: int) -> list[str]:
    """Live (not zombie) processes of a process group, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(stat.parent.name)
    return found


def report_of(report_dir: Path, run: Run) -> dict[str, Any]:
    for name in RUN_FILES:
        assert (report_dir / name).is_file(), f"{name} missing:\n{run.text()[-3000:]}"
    assert not list(report_dir.glob(".*.part")), "a report file was left half-written"
    data: dict[str, Any] = json.loads((report_dir / "conformance.json").read_text("utf-8"))
    return data


def assert_stopped(run: Run, took: float, report_dir: Path, signum: int) -> dict[str, Any]:
    """What every stopped run shows: a prompt exit 3, every report, verdict incomplete, notes."""
    name = signal.Signals(signum).name
    output = run.text()
    print(f"{name}: exited {took:.2f} s after the signal")  # shown with -rP
    assert took < STOP_BOUND_S, f"{name}: {took:.1f}s to exit:\n{output[-3000:]}"
    assert run.process.returncode == launch.EXIT_INCOMPLETE, output[-3000:]
    assert f"stopped by {name}" in output
    assert "KeyboardInterrupt" not in output and "--full-trace" not in output, output[-3000:]
    last = output.strip().splitlines()[-1]  # one line: the stop, the verdict, the reports
    assert last.startswith(f"conformance: stopped by {name} after "), last
    assert f"reports in {report_dir}" in last, last
    data = report_of(report_dir, run)
    assert data["verdict"] == Verdict.INCOMPLETE.value
    assert data["requirements"], "the report lists nothing"
    for requirement in data["requirements"]:
        if requirement["outcome"] not in JUDGED:
            assert f"stopped by {name}" in requirement["note"], requirement
    if sys.platform == "linux":
        time.sleep(0.5)  # its Popen and xdist children are waited for before it exits
        assert group_members(run.process.pid) == [], "processes of the run were left running"
    return data


def measured(data: dict[str, Any]) -> list[str]:
    return [r["id"] for r in data["requirements"] if r["outcome"] in JUDGED]


@pytest.mark.parametrize("signum", SIGNALS)
def test_the_scenarios_stage_stops_with_its_reports(
    tmp_path: Path, runs: list[Run], signum: int
) -> None:
    """xdist workers get the group's signal too; the controller still writes what they sent."""
    reports = tmp_path / "reports"
    run = Run(tmp_path, "run", "--report-dir", str(reports), "--", "-vv")
    runs.append(run)
    run.wait_until(line_matches(" PASSED ", " FAILED "), "test report line")
    took = run.stop(signum)
    data = assert_stopped(run, took, reports, signum)
    assert measured(data)
    assert list((reports / "allure-results").glob("*-result.json"))


@pytest.mark.long  # about 30 s: the pr tier, so that it is still fuzzing when signalled
@pytest.mark.parametrize("signum", SIGNALS)
def test_the_fuzz_stage_stops_with_its_reports(
    tmp_path: Path, runs: list[Run], signum: int
) -> None:
    reports = tmp_path / "reports"
    run = Run(
        tmp_path, "run", "--stage", "fuzz", "--tier", "pr", "--report-dir", str(reports), "--",
        "-vv",
    )  # fmt: skip
    runs.append(run)
    run.wait_until(line_matches(" PASSED ", " FAILED "), "test report line")
    took = run.stop(signum)
    data = assert_stopped(run, took, reports, signum)
    assert measured(data)
    assert list((reports / "allure-results").glob("*-result.json"))


def _scenario_clients(parent: int, scenario: str) -> set[int]:
    """The client processes the client stage started for one scenario (by their environment)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rpartition(")")[2].split()[1]) != parent:
                continue
            environ = (stat.parent / "environ").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if f"RCES_SCENARIO={scenario}".encode() in environ:
            found.add(int(stat.parent.name))
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="watches the client processes in /proc")
@pytest.mark.parametrize("signum", SIGNALS)
def test_the_client_stage_stops_with_its_reports(
    tmp_path: Path, runs: list[Run], signum: int
) -> None:
    """Signalled once the shortest scenario (last-hash) has ended: it is judged, the scenarios
    still running are not measurable, with the stop in their note. The last hash is judged on
    every request of every scenario, so on a cut run the requirement stays unmeasured while the
    last-hash scenario's own test passes."""
    reports = tmp_path / "reports"
    run = Run(tmp_path, "client", "--report-dir", str(reports))
    runs.append(run)
    seen: set[int] = set()

    def last_hash_over(run: Run) -> bool:
        now = _scenario_clients(run.process.pid, "last-hash")
        seen.update(now)
        return bool(seen) and not now

    run.wait_until(last_hash_over, "end of the last-hash scenario")
    took = run.stop(signum)
    data = assert_stopped(run, took, reports, signum)
    (own,) = [t for t in data["tests"] if t["test_id"].endswith("[last-hash]")]
    assert own["outcome"] == "pass", own
    assert "POLL-CLIENT-SEND-LAST-HASH" not in measured(data)
    (stage,) = [s for s in data["stages"] if s["name"] == "client"]
    scenarios = stage["details"]["scenarios"]
    assert "stopped" not in scenarios["last-hash"]
    assert f"stopped by {signal.Signals(signum).name}" in scenarios["hint"]["stopped"]


@pytest.mark.parametrize("signum", SIGNALS)
def test_the_load_stage_stops_and_keeps_its_partial_figures(
    tmp_path: Path, runs: list[Run], signum: int
) -> None:
    """Locust's master and workers get the group's signal too: the master writes what it
    received, the stage summary keeps those figures, and no rule is judged on a cut run."""
    reports = tmp_path / "reports"
    run = Run(
        tmp_path, "run", "--stage", "load", "--load-workers", "1", "--load-port",
        str(free_port()), "--report-dir", str(reports),
    )  # fmt: skip
    runs.append(run)
    progress = reports / "load-progress.txt"
    run.wait_until(
        lambda _: progress.is_file() and "load:" in progress.read_text("utf-8"), "load progress"
    )
    took = run.stop(signum)
    data = assert_stopped(run, took, reports, signum)
    assert measured(data) == []  # a cut fleet measured no rule...
    (stage,) = [s for s in data["stages"] if s["name"] == "load"]
    details = stage["details"]
    assert details["figures"]["polls"] > 0  # ...but what it sent is kept
    assert f"stopped by {signal.Signals(signum).name}" in details["stopped"]
    assert list((reports / "allure-results").glob("*-result.json"))
    assert "partial: the run was stopped" in (reports / "conformance.md").read_text("utf-8")


# ------------------------------------------------------------------ the handler itself

HANDLED = """
import sys, time
from conformance.session import stop_signals
with stop_signals.handling():
    interrupts = 0
    while interrupts < 2:  # while tests run, each stop signal interrupts
        try:  # the test sends a signal only once it has read the line printed here
            line = "ready" if not interrupts else f"interrupted 1 {stop_signals.stopped().name}"
            print(line, flush=True)
            time.sleep(60)
        except KeyboardInterrupt:
            interrupts += 1
    print(f"interrupted {interrupts} {stop_signals.stopped().name}", flush=True)
    stop_signals.finishing()  # the session's finish: the reports are being written
    print("finishing", flush=True)
    deadline = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < deadline:
        time.sleep(0.05)
    print("written", flush=True)
    sys.exit(3)
"""


def _handled(tmp_path: Path, writing_s: float) -> subprocess.Popen[str]:
    """The handler in a process of its own, interrupted twice, then finishing."""
    process = subprocess.Popen(
        [sys.executable, "-c", HANDLED, str(writing_s)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_ci_starts_it,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    process.send_signal(signal.SIGTERM)
    assert process.stdout.readline() == "interrupted 1 SIGTERM\n"
    process.send_signal(signal.SIGINT)  # a swallowed interrupt, or a user who insists
    assert process.stdout.readline() == "interrupted 2 SIGTERM\n"  # the first one is kept
    assert process.stdout.readline() == "finishing\n"
    return process


def test_a_signal_while_finishing_is_ignored_and_the_next_ends_at_once(tmp_path: Path) -> None:
    process = _handled(tmp_path, 2.0)
    process.send_signal(signal.SIGINT)  # GitHub's cancel: SIGINT, then SIGTERM 7.5 s later
    out, err = process.communicate(timeout=30)
    assert (out, process.returncode) == ("written\n", 3)
    assert "SIGINT: finishing, writing what was measured" in err

    process = _handled(tmp_path, 30.0)
    process.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=10)
    assert process.returncode == -signal.SIGTERM and "written" not in out
    assert "stopping at once, without reports" in err


SWALLOWED = """
import gc, os, signal, time
from conformance.session import stop_signals
fired = []
def callback(phase, info):
    if phase == "start" and not fired:
        fired.append(phase)
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100_000):
            pass  # the handler runs in here: its exception can only be reported as unraisable
with stop_signals.handling():
    gc.callbacks.append(callback)
    try:
        gc.collect()
        time.sleep(5)
        print("went on", flush=True)
    except KeyboardInterrupt as error:
        print("interrupted:", error, flush=True)
"""


def test_an_interrupt_a_gc_callback_swallowed_is_delivered_again(tmp_path: Path) -> None:
    """Hypothesis registers a garbage-collector callback; a signal handled while it runs raises
    where Python can only report the exception. Without a second delivery the run went on."""
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        preexec_fn=as_ci_starts_it,
    )
    assert done.stdout == "interrupted: stopped by SIGTERM\n", done.stderr[-2000:]


def test_a_signal_ignored_at_start_stays_ignored_and_handlers_come_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    saved = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with stop_signals.handling():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (before, signal.SIG_DFL)
            assert stop_signals.stopped() is None
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == before
    finally:
        signal.signal(signal.SIGINT, saved)


STOPS_ITSELF = """
import os, signal, time


def test_stop():
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(10)
"""


def test_a_stop_signal_ends_pytest_without_a_keyboardinterrupt_traceback(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_stops=STOPS_ITSELF)
    result = pytester.runpytest_subprocess("-p", "conformance.session.stop_signals")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED, output
    assert "KeyboardInterrupt" not in output and "--full-trace" not in output, output
    assert "stop_signals.py" not in output, output  # no source line of the kit


def test_a_stopped_run_never_exits_0() -> None:
    status = launch.exit_status
    assert status(Verdict.INCOMPLETE, stopped=True) == launch.EXIT_INCOMPLETE
    assert status(Verdict.INCOMPLETE, accept_incomplete=True, stopped=True) == 3
    assert status(Verdict.CONFORMANT, stopped=True) == launch.EXIT_INCOMPLETE
    assert status(Verdict.NOT_CONFORMANT, stopped=True) == launch.EXIT_NOT_CONFORMANT
    assert status(Verdict.INCOMPLETE, accept_incomplete=True) == launch.EXIT_CONFORMANT
    assert "stopping: SIGINT (Ctrl-C) or SIGTERM" in cli._parser().format_help()


def test_a_report_file_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "conformance.json"
    write_whole(path, '{"verdict": "conformant"}', "utf-8")
    with pytest.raises(UnicodeEncodeError):  # fails midway: after opening, while writing
        write_whole(path, '{"verdict": "incomplete", "note": "\u2026"}', "ascii")
    assert json.loads(path.read_text("utf-8")) == {"verdict": "conformant"}
    assert [p.name for p in tmp_path.iterdir()] == ["conformance.json"]
