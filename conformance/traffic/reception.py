"""Receiving one answer: a reading thread streams it under the size cap while the caller waits
until the deadline, and what a lost answer means (which transport error, whether to resend).

``Client`` (``conformance.traffic.client``) calls ``receive`` for every exchange;
``transport_problem`` words a transport error for the evidence and ``may_resend`` says whether
the request may be sent a second time.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable

import httpx

ABANDON_GRACE_SECONDS = 0.5  # after the deadline, how long the reading thread may take to stop
IDLE_SECONDS = 30.0  # a reading thread with no answer to read this long ends


def receive(
    http: httpx.Client, request: httpx.Request, deadline: float, max_bytes: int
) -> tuple[httpx.Response | None, bytes, str | None]:
    """Headers and body, streamed by a reading thread this one waits for until ``deadline``.

    Returns the response (None if its headers never completed), the bytes read and, when
    cut short, what cut it. A per-read timeout alone would let a target that drips bytes
    hold the run forever; the deadline counts from sending to the body's last byte."""
    left = deadline - time.perf_counter()
    timeouts = dict(request.extensions.get("timeout") or {})
    request.extensions["timeout"] = {  # no single wait may outlast the deadline
        k: (None if v is None else min(v, left)) for k, v in timeouts.items()
    }
    reception = Reception(max_bytes)
    READERS.run(lambda: reception.read(http, request))
    if not reception.done.wait(max(0.0, deadline - time.perf_counter())):
        reception.abandon()
        reception.done.wait(ABANDON_GRACE_SECONDS)
        state = (
            "its headers had not arrived"
            if reception.response is None
            else f"the body was still arriving after {reception.size} bytes"
        )
        return reception.response, reception.content(), f"at the deadline {state}"
    if reception.error is not None:
        raise reception.error
    return reception.response, reception.content(), reception.cut


_TRANSPORT_PROBLEMS: tuple[tuple[type[httpx.TransportError], str], ...] = (
    (httpx.ConnectTimeout, "no connection within the connect timeout"),
    (httpx.ConnectError, "the connection was refused or could not be opened"),
    (httpx.ReadTimeout, "no answer (or no further bytes) within the read timeout"),
    (httpx.WriteTimeout, "the request could not be sent within the write timeout"),
    (httpx.PoolTimeout, "no free connection within the pool timeout"),
    (httpx.RemoteProtocolError, "the connection was closed or reset, or the answer was not HTTP"),
    (httpx.ReadError, "the connection was reset while reading the answer"),
    (httpx.WriteError, "the connection was reset while sending the request"),
)
"""What each transport error means, most specific first."""


def transport_problem(error: httpx.TransportError) -> str:
    for kind, meaning in _TRANSPORT_PROBLEMS:
        if isinstance(error, kind):
            return f"{meaning} ({type(error).__name__})"
    return f"a transport error ({type(error).__name__})"


class Reception:
    """One answer as a reading thread receives it; the waiting thread may abandon it."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.response: httpx.Response | None = None
        self.chunks: list[bytes] = []
        self.size = 0
        self.cut: str | None = None
        self.error: Exception | None = None
        self.done = threading.Event()
        self.abandoned = False

    def read(self, http: httpx.Client, request: httpx.Request) -> None:
        try:
            response = http.send(request, stream=True)
            self.response = response
            try:
                for chunk in response.iter_bytes():
                    self.chunks.append(chunk)
                    self.size += len(chunk)
                    if self.size > self.max_bytes:
                        self.cut = f"the body passed the size cap ({self.size} bytes read)"
                        break
                    if self.abandoned:
                        break
            finally:
                response.close()
        except Exception as error:  # re-raised by the waiting thread, unless it left
            if not self.abandoned:
                self.error = error
        finally:
            self.done.set()

    def content(self) -> bytes:
        return b"".join(self.chunks)

    def abandon(self) -> None:
        """Stop waiting; shut the connection so the reading thread wakes up and ends."""
        self.abandoned = True
        response = self.response
        stream = None if response is None else response.extensions.get("network_stream")
        sock = None if stream is None else stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class Readers:
    """Reading threads kept for reuse: an answer goes to an idle one, else to a new one, so no
    answer ever waits for another (one still reading an abandoned answer is not idle). Starting
    a thread per answer cost about a millisecond of wall time each (a thread's start handshake
    under the GIL); handing work to a waiting one costs about what a direct read does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[Callable[[], None]]] = []

    def run(self, work: Callable[[], None]) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(
                target=self._serve, args=(inbox,), name="rces-response", daemon=True
            ).start()
        inbox.put(work)

    def _serve(self, inbox: queue.SimpleQueue[Callable[[], None]]) -> None:
        while True:
            try:
                work = inbox.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # no one took it meanwhile: end
                        self._idle.remove(inbox)
                        return
                continue  # taken just now: its work is on the way
            work()
            with self._lock:
                self._idle.append(inbox)


READERS = Readers()


# Methods a lost answer allows to resend (RFC 9110 9.2.2): POST and PATCH may have taken effect.
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


def may_resend(method: str, error: httpx.TransportError) -> bool:
    """Resend an idempotent request, or any request that never reached the target (no
    connection): a POST or PATCH whose answer was lost may have created or changed something,
    and a second one would be judged against the first one's effect."""
    return method.upper() in IDEMPOTENT or isinstance(
        error, httpx.ConnectError | httpx.ConnectTimeout
    )
