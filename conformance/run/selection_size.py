"""How many tests a run selects, counted before it starts: a run of a few runs in one process.

Starting pytest-xdist workers costs each of them pytest, the suite's imports, a collection and
the session fixtures: seconds that only pay back over many tests. A run that ``--requirements``
or pytest arguments after ``--`` narrow to a few tests (fewer than ``ONE_PROCESS_BELOW``) runs
them in the command's own process instead. The count is pytest's own: the chosen stages
collected in this process, with the run's selection, and nothing run. The modules it imports
are the ones the one-process run then uses, so a short run pays for that collection only once.
The figures behind the threshold: benchmarks/README.md, "Workers for a few tests".
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence

import pytest

ONE_PROCESS_BELOW = 32  # selected tests: fewer run in one process under --workers auto


class _Count:
    """A plugin that keeps how many items the collection selected."""

    def __init__(self) -> None:
        self.items: int | None = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.items = len(session.items)


def narrowed(requirements: str | None, pytest_arguments: Sequence[str]) -> bool:
    """Whether a run selects less than its whole stages (only then is counting worth it)."""
    return bool(requirements) or bool(pytest_arguments)


def selected(arguments: Sequence[str], plugins: Sequence[object]) -> int | None:
    """The number of tests ``pytest arguments`` select (None: the collection failed; the run
    itself will say why). ``arguments``: the run's, without xdist's ``-n`` and without the stop
    signals plugin (a collection must not mark the run as finishing)."""
    count = _Count()
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        code = pytest.main([*arguments, "--collect-only", "-qq"], plugins=[*plugins, count])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        return None
    return count.items
