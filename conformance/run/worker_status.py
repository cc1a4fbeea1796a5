"""pytest-xdist's worker status line, said once per run.

Where the output is not a terminal (CI, a log, a pipe), xdist writes its status line twice, at
the workers' start and once they have collected, and under ``-q`` both read "bringing up
nodes...". A run keeps the first: the second adds nothing but a duplicate line. On a terminal
xdist rewrites the one line in place, and that is left as it is.

Loaded through the plugin's ``pytest_plugins``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest


def said_once(show: Callable[[], None]) -> Callable[[], None]:
    """``show``, doing its work on the first call only."""
    done: list[bool] = []

    def once() -> None:
        if not done:
            done.append(True)
            show()

    return once


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Before xdist starts its workers (its own session start runs last)."""
    dsession = session.config.pluginmanager.get_plugin("dsession")
    status = getattr(dsession, "trdist", None)
    show = getattr(status, "ensure_show_status", None)
    if status is not None and callable(show):  # another xdist may have neither: left alone
        status.ensure_show_status = said_once(show)
