"""raw_socket: the bytes after a header block, which an HTTP client never shows (real sockets)."""

from __future__ import annotations

import socket
import threading
import time

from conformance.traffic import raw_socket
from tests.support.hostile_servers import Hostile, answer, silent

CAP = 65536


def _fetch(url: str, seconds: float = 1.5, linger: float = 0.3) -> raw_socket.RawAnswer:
    return raw_socket.exchange(
        url,
        "/sdk/v2/status",
        {"authorization": "k", "If-None-Match": '"h"'},
        params={"hash": "h"},
        max_bytes=CAP,
        max_seconds=seconds,
        linger_seconds=linger,
    )


def test_a_304_with_a_body_shows_its_bytes() -> None:
    with Hostile([answer(304, b'{"x":1}', (("ETag", '"h"'),))]).running() as server:
        got = _fetch(server.base_url)
    assert (got.status, got.after_head, got.problem) == (304, b'{"x":1}', "")
    assert got.headers["etag"] == '"h"'


def test_a_bare_304_shows_nothing_after_its_head() -> None:
    with Hostile([answer(304, b"")]).running() as server:
        got = _fetch(server.base_url)
    assert (got.status, got.after_head, got.problem) == (304, b"", "")


def test_a_peer_that_keeps_the_connection_open_costs_the_linger_only() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    done = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b'HTTP/1.1 304 Not Modified\r\nETag: "h"\r\n\r\n')
        done.wait(5)  # ignores Connection: close
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started = time.monotonic()
    got = _fetch(f"http://127.0.0.1:{port}", seconds=5, linger=0.3)
    elapsed = time.monotonic() - started
    done.set()
    thread.join(2)
    listener.close()
    assert (got.status, got.after_head) == (304, b"")
    assert elapsed < 1.5


def test_no_head_is_said_not_hidden() -> None:
    with Hostile([silent]).running() as server:
        got = _fetch(server.base_url, seconds=0.5)
    assert got.status is None and "no header block within 0.5s" in got.problem


def test_https_to_a_peer_that_speaks_no_tls_is_no_connection_not_a_crash() -> None:
    with Hostile([answer(304, b"")]).running() as server:
        got = _fetch(server.base_url.replace("http://", "https://"))
    assert got.status is None and got.problem.startswith("no connection: ")  # no handshake
