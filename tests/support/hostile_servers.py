"""Small hostile HTTP servers over real sockets: drip, endless, huge, silent, reset, fixed answers,
a catch-all HTML page.

Each ``Hostile`` server reads one request per connection and hands the socket to a behaviour,
chosen by the request's number (the last behaviour repeats). Every answer closes its connection.
The servers stop when the test ends: behaviours that never end watch the ``stop`` event.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

Behaviour = Callable[[socket.socket, threading.Event], None]

PROFILE = """\
credentials:
  pat: svc_pat_hostile_secret
  sdk_keys:
    - {key: svc_pk_hostile_secret, environments: [development, production]}
project:
  application_id: 1
  environments: {development: 1, production: 2}
capabilities: {experiments: false}
responses: {max_bytes: 65536, max_seconds: 1.5}
"""


def answer(
    status: int,
    body: bytes = b"{}",
    headers: Sequence[tuple[str, str]] = (),
    content_type: str = "application/json",
) -> Behaviour:
    """A whole answer at once."""

    def send(conn: socket.socket, stop: threading.Event) -> None:
        head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", "Connection: close"]
        head += [f"{k}: {v}" for k, v in (("Content-Type", content_type), *headers)]
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)

    return send


CATCH_ALL_PAGE = (
    b"<!doctype html><html><head><title>Sign in</title></head><body>login</body></html>"
)


def catch_all_html() -> Behaviour:
    """``200 text/html`` on every path: a proxy's login page, an SPA fallback, a default page."""
    return answer(200, CATCH_ALL_PAGE, content_type="text/html; charset=utf-8")


def drip(every: float = 0.2, size: int = 1024, give_up: float = 20.0) -> Behaviour:
    """A 200 whose JSON array body never ends: ``size`` bytes every ``every`` seconds.

    "Never" is ``give_up`` seconds, so that a client without a deadline makes its test fail on
    the elapsed time instead of hanging the test run."""

    def send(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        _chunk(conn, b"[")
        item = b'{"n": 1},'
        piece = item * (size // len(item))
        ends = time.monotonic() + give_up
        while not stop.wait(every) and time.monotonic() < ends:
            _chunk(conn, piece)

    return send


def header_drip(every: float = 0.2, give_up: float = 20.0) -> Behaviour:
    """A status line, then one more header line every ``every`` seconds, never the blank line."""

    def send(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        ends = time.monotonic() + give_up
        while not stop.wait(every) and time.monotonic() < ends:
            conn.sendall(b"X-Drip: 1\r\n")

    return send


def huge(total: int = 64 * 1024 * 1024) -> Behaviour:
    """A 200 announcing and sending a body far over any sensible cap, as fast as it can."""

    def send(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {total}\r\nConnection: close\r\n\r\n".encode()
        )
        block = b" " * 65536
        sent = 0
        while sent < total and not stop.is_set():
            conn.sendall(block)
            sent += len(block)

    return send


def silent(conn: socket.socket, stop: threading.Event) -> None:
    """Reads the request, then never answers (for 20 s: a test fails rather than hangs)."""
    stop.wait(20.0)


def reset(conn: socket.socket, stop: threading.Event) -> None:
    """Closes the connection with a TCP reset instead of an answer."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _chunk(conn: socket.socket, data: bytes) -> None:
    conn.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n")


class Hostile:
    """A listening socket on 127.0.0.1 whose n-th request meets ``behaviours[n]``."""

    def __init__(self, behaviours: Sequence[Behaviour]) -> None:
        self.behaviours = list(behaviours)
        self.requests = 0
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._threads: list[threading.Thread] = []

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                index = min(self.requests, len(self.behaviours) - 1)
                self.requests += 1
            thread = threading.Thread(target=self._serve, args=(conn, index), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket, index: int) -> None:
        try:
            conn.settimeout(5.0)
            data = b""
            while b"\r\n\r\n" not in data:
                more = conn.recv(65536)
                if not more:
                    return
                data += more
            self.behaviours[index](conn, self.stop)
        except OSError:
            pass  # the client went away: that is how a bounded client ends a hostile answer
        finally:
            conn.close()

    @contextmanager
    def running(self) -> Iterator[Hostile]:
        acceptor = threading.Thread(target=self._accept, daemon=True)
        acceptor.start()
        try:
            yield self
        finally:
            self.stop.set()
            acceptor.join(2.0)
            self._listener.close()
            deadline = time.monotonic() + 2.0
            for thread in self._threads:
                thread.join(max(0.0, deadline - time.monotonic()))
