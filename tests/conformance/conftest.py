"""Fixtures for the suite's own tests: one real reference server on 127.0.0.1 for the session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The reference server on a free loopback port with a throwaway SQLite file."""
    from refserver.runner import start_server

    db = Path(tmp_path_factory.mktemp("refserver")) / "ref.db"
    server = start_server(db, port=0)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
