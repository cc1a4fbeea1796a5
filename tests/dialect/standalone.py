"""Serving a dialect by hand (``python3 -m dialect DIR``, ``python3 -m dialect2 DIR``): start it,
write its profile in DIR, print its base URL and the profile's path, serve until interrupted."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from refserver.runner import RunningServer

Serve = Callable[[Path, Path], RunningServer]  # (database, profile) -> the running server
Write = Callable[[Path], Path]  # turns the reference profile at a path into the dialect's


def serve_until_interrupted(serve: Serve, write: Write, argv: list[str] | None = None) -> None:
    """Serve in the folder ``argv[0]`` (default: the current one) until Ctrl-C."""
    args = sys.argv[1:] if argv is None else argv
    workdir = Path(args[0] if args else ".").resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    profile = workdir / "profile.yaml"
    server = serve(workdir / "refserver.db", profile)
    write(profile)
    print(f"{server.base_url} {profile}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
