"""The serial phase as a test sees it: the ``serial`` marker, whether the running test is serial
(nothing else of the suite in flight), and ``require_serial_phase`` for a check that needs the
target to itself. The scheduling that makes it so is ``conformance.run.phases``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

MARK = "serial"
GROUP = "serial"  # the xdist group serial tests are put in: their nodeids end in "@serial"
_RUNNING: list[pytest.Item] = []  # the serial test this process runs now, if any


class QuietnessUnknown(RuntimeError):
    """A check that needs the target to itself ran outside the serial phase (a suite bug)."""


def is_serial(item: pytest.Item) -> bool:
    return item.get_closest_marker(MARK) is not None


def in_serial_phase() -> bool:
    """Whether the test running in this process is a serial one (nothing else in flight)."""
    return bool(_RUNNING)


def require_serial_phase(what: str) -> None:
    if not in_serial_phase():
        raise QuietnessUnknown(
            f"{what} needs the target to itself: mark the test `serial` "
            "(conformance.session.serial_phase), so it runs after the parallel phase"
        )


@contextmanager
def running(item: pytest.Item) -> Iterator[None]:
    """While ``item`` runs: in the serial phase when it is marked ``serial``."""
    serial = is_serial(item)
    if serial:
        _RUNNING.append(item)
    try:
        yield
    finally:
        if serial:
            _RUNNING.remove(item)
