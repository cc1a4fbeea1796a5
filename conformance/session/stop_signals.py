"""Stopping a run on request: SIGTERM and SIGINT end it as Ctrl-C does, with its reports written.

A CI cancel, ``timeout`` or a container stop sends SIGTERM (often to the whole process group);
Ctrl-C sends SIGINT. In the process that runs pytest for a run (``conformance run`` and
``conformance client`` hold ``handling()``), either signal raises ``KeyboardInterrupt`` in the main
thread: pytest's own interrupt handling then tears the fixtures down and runs
``pytest_sessionfinish``, where the run collector writes every report with what was measured so
far. A stage whose measuring sits in one session fixture (the load fleet, the client scenarios)
catches the interrupt there, stops its own processes and keeps what they measured.

There, while tests run, every stop signal interrupts (the first one is kept: ``stopped()`` says
which signal stopped this process, for the notes and the exit status). Once the run is
``finishing()`` (pytest's session finish, where xdist stops its workers and the reports are
written, or a stage stopping its own processes), a stop signal is noted and ignored, so the reports
are not cut short; the next one ends the process at once, reports or not.

Both commands load this module as a pytest plugin (``-p conformance.session.stop_signals``): it
marks the session's finish, and in a pytest-xdist worker, which writes no report, it makes either
signal raise ``KeyboardInterrupt`` every time, as Python's SIGINT does.

An interrupt raised where Python cannot pass it on (the handler ran inside a garbage-collector
callback, as Hypothesis registers one, or a ``__del__``) is only reported as unraisable, and the
run would go on: such a swallowed interrupt is delivered again (``_redeliver_swallowed``).

A signal the process inherited as ignored (``nohup``, a background job of a non-interactive shell)
stays ignored.

PYTEST_DONT_REWRITE: the commands import this module before pytest loads it as a plugin (it holds
no assert to rewrite).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from types import FrameType
from typing import Any

import pytest

SIGNALS = (signal.SIGINT, signal.SIGTERM)
IGNORED_BEFORE_HARD_STOP = 1  # stop signals ignored while finishing; the next ends it at once
REDELIVER_AFTER_S = 0.02  # a swallowed interrupt is delivered again this much later

Handler = Callable[[int, FrameType | None], Any] | int | None


@dataclass(frozen=True)
class Stop:
    """The first stop signal this process received."""

    name: str  # "SIGTERM", "SIGINT"
    at: float  # ``time.monotonic()`` when it arrived

    def note(self, started: float | None = None) -> str:
        """``stopped by SIGTERM`` (``after 12.3 s`` when the run's start is given)."""
        after = "" if started is None else f" after {max(0.0, self.at - started):.1f} s"
        return f"stopped by {self.name}{after}"


class _State:
    def __init__(self) -> None:
        self.stop: Stop | None = None
        self.finishing = False
        self.ignored = 0
        self.redelivering = False
        self.saved: dict[int, Handler] | None = None


_state = _State()


def stopped() -> Stop | None:
    """The stop signal this process received since ``install()`` (None: none)."""
    return _state.stop


def _say(text: str) -> None:
    """One line on stderr, safe inside a signal handler (no buffered stream to re-enter)."""
    with suppress(OSError):
        os.write(2, (text + "\n").encode("utf-8", "replace"))


def finishing() -> None:
    """This process is winding down (writing what it measured): a stop signal from now on is
    noted and ignored, the next one ends it at once."""
    _state.finishing = True


def _interruption(signum: int) -> KeyboardInterrupt:
    _redeliver_swallowed(signum)
    return KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


def _redeliver_swallowed(signum: int) -> None:
    """From now on, a ``KeyboardInterrupt`` of ours that Python could only report as unraisable
    is delivered again, as the same signal (other unraisables go to the hook as before)."""
    previous = sys.unraisablehook
    if getattr(previous, "redelivers_stops", False):
        return

    def hook(unraisable: Any) -> None:
        value = unraisable.exc_value
        ours = isinstance(value, KeyboardInterrupt) and str(value).startswith("stopped by")
        if ours and _state.saved is not None:  # our handler is still the one that will run
            _state.redelivering = True
            # from another thread, so that it lands once this callback has returned
            again = threading.Timer(REDELIVER_AFTER_S, os.kill, (os.getpid(), signum))
            again.daemon = True
            again.start()
            return
        previous(unraisable)

    hook.redelivers_stops = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


def _handle(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    again, _state.redelivering = _state.redelivering, False
    if _state.stop is None:
        _state.stop = Stop(name, time.monotonic())
    if not _state.finishing:
        raise _interruption(signum)
    if again:
        return
    _state.ignored += 1
    if _state.ignored > IGNORED_BEFORE_HARD_STOP:
        _say(f"conformance: {name} again: stopping at once, without reports")
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    _say(
        f"conformance: {name}: finishing, writing what was measured; one more stop signal "
        "ends it at once"
    )


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    """An xdist worker's stop signal: ``KeyboardInterrupt``, every time."""
    _state.redelivering = False
    raise _interruption(signum)


def install(*, worker: bool = False) -> bool:
    """Handle the stop signals in this process from now on; False when it cannot (not the main
    thread) or already does. A signal ignored so far stays ignored. ``worker``: an xdist worker's
    handling (every signal interrupts)."""
    if threading.current_thread() is not threading.main_thread() or _state.saved is not None:
        return False
    _state.stop, _state.finishing, _state.ignored = None, False, 0
    handler = _interrupt if worker else _handle
    _state.saved = {number: signal.getsignal(number) for number in SIGNALS}
    for number, previous in _state.saved.items():
        if previous is not signal.SIG_IGN:
            signal.signal(number, handler)
    return True


def restore() -> None:
    """Put back the handlers ``install`` found (what was received stays readable)."""
    saved, _state.saved = _state.saved, None
    for number, previous in (saved or {}).items():
        signal.signal(number, signal.SIG_DFL if previous is None else previous)


@contextmanager
def handling() -> Iterator[None]:
    """While inside: SIGTERM and SIGINT stop the run (see the module docstring)."""
    installed = install()
    try:
        yield
    finally:
        if installed:
            restore()


# ------------------------------------------------------------------ as a pytest plugin

_installed_by_plugin: list[bool] = []
_configs: list[pytest.Config] = []  # the running pytest's (one per pytest.main at a time)


def pytest_configure(config: pytest.Config) -> None:
    """Every pytest process of a run handles the stop signals (xdist workers get the process
    group's signal too); a process whose command already does keeps its handler."""
    _installed_by_plugin.append(install(worker=hasattr(config, "workerinput")))
    _configs.append(config)


@pytest.hookimpl(trylast=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """A stop signal is a clean stop, not a crash: pytest's "!!! KeyboardInterrupt !!!", its
    source line and "use --full-trace" are left out (the command's last line says where the
    reports are). Any other interrupt is shown as pytest shows it."""
    if not str(excinfo.value).startswith("stopped by") or not _configs:
        return
    terminal = _configs[-1].pluginmanager.get_plugin("terminalreporter")
    if terminal is not None and hasattr(terminal, "_report_keyboardinterrupt"):
        terminal._report_keyboardinterrupt = lambda: None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Before every other finish hook (xdist stops its workers there, the run collector writes the
    reports): from now on a stop signal does not cut the run short."""
    finishing()


def pytest_unconfigure(config: pytest.Config) -> None:
    if config in _configs:
        _configs.remove(config)
    if _installed_by_plugin and _installed_by_plugin.pop():
        restore()
