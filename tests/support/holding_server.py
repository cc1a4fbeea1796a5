"""A loopback HTTP server that holds back its answers: the hostile or slow target of the tests of
output redaction and of the run deadline.

Real sockets (``http.server`` in a thread). Any path containing ``/slow`` is answered only after
``hold_s`` seconds (or when the server stops), past a short client timeout; ``/deny`` answers 401;
everything else answers 200 at once (``[]`` for lists the pre-flight reads, a snapshot with its
``hash`` for the status poll, else ``{}``).
``every_hold_s`` holds back every answer but the pre-flight's, for a target slower than a deadline.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

PREFLIGHT_INSTANCE = "cf-preflight"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        hold = self.server.every_hold_s
        if self.headers.get("server-id") == PREFLIGHT_INSTANCE or "/experiments" in self.path:
            hold = 0.0  # the pre-flight is answered at once
        if "/slow" in self.path:
            hold = self.server.hold_s
        if hold:
            self.server.stopping.wait(hold)
        status = 401 if "/deny" in self.path else 200
        body = b"[]" if self.path.endswith("/experiments") else b"{}"
        if "/sdk/v2/status" in self.path:
            body = b'{"hash": "held"}'  # a status snapshot, as the pre-flight asks
        with contextlib.suppress(OSError):
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    do_POST = do_PATCH = do_DELETE = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    hold_s = 5.0
    every_hold_s = 0.0
    stopping: threading.Event


@contextlib.contextmanager
def holding_server(hold_s: float = 5.0, every_hold_s: float = 0.0) -> Iterator[str]:
    """Serve on 127.0.0.1 (a free port) while the block runs; yields the base URL."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.hold_s = hold_s
    server.every_hold_s = every_hold_s
    server.stopping = threading.Event()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def write_profile(path: Path, pat: str, sdk_key: str) -> Path:
    """A minimal target profile for the holding server with these credentials."""
    profile = {
        "profile_version": 1,
        "credentials": {
            "pat": pat,
            "sdk_keys": [{"key": sdk_key, "environments": ["development", "production"]}],
        },
        "project": {"application_id": 1, "environments": {"development": 1, "production": 2}},
    }
    path.write_text(yaml.safe_dump(profile), encoding="utf-8")
    return path
