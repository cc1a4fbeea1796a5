"""Fixtures for the suite's own tests: the reference server on 127.0.0.1 over a throwaway SQLite
file, one for the session (``reference_server``) or a fresh one for a test
(``fresh_reference_server``: fresh buckets and load meter), and a loopback URL nothing listens on.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.ports import free_port

if TYPE_CHECKING:
    from refserver.runner import RunningServer


@contextmanager
def served_reference_server(folder: Path) -> Iterator[RunningServer]:
    """The reference server on a free loopback port with its SQLite file in ``folder``."""
    from refserver.runner import start_server

    server = start_server(folder / "ref.db", port=0)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """One reference server for the whole session."""
    with served_reference_server(tmp_path_factory.mktemp("refserver")) as server:
        yield server


@pytest.fixture
def fresh_reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A reference server of the test's own (fresh buckets and load meter)."""
    with served_reference_server(tmp_path_factory.mktemp("refserver")) as server:
        yield server


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    return f"http://127.0.0.1:{free_port()}"
