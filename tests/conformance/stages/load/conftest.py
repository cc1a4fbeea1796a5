"""Fixtures of the load stage's tests: a reference server of their own on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def reference_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A fresh reference server (fresh buckets and load meter) with a throwaway SQLite file."""
    from refserver.runner import start_server

    db = Path(tmp_path_factory.mktemp("refserver")) / "ref.db"
    server = start_server(db, port=0)
    try:
        yield server
    finally:
        server.stop()
