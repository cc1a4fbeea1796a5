"""One HTTP/1.1 exchange over a plain socket: what framing hides from an HTTP client.

httpx reads a 304 as bodiless whatever follows its header block (RFC 9112 6.3), so bytes a
target writes after it only corrupt the next answer on that connection. This reads them: the
request goes out with ``Connection: close``, the header block is read under the answer deadline,
then whatever follows until the peer closes, ``linger_seconds`` pass, or the size cap is reached.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

HEAD_END = b"\r\n\r\n"


@dataclass(frozen=True)
class RawAnswer:
    """What came back: the status line's code, the header block, and every byte after it."""

    status: int | None  # None: no complete status line
    headers: dict[str, str]  # lower-case names; the last of repeated ones
    after_head: bytes
    problem: str  # "" when the head came whole; else why it did not


def exchange(
    base_url: str,
    path: str,
    headers: Mapping[str, str],
    *,
    params: Mapping[str, str] | None = None,
    max_bytes: int,
    max_seconds: float,
    linger_seconds: float = 1.0,
) -> RawAnswer:
    """Send ``GET path`` and read the answer as bytes (see the module docstring)."""
    url = urlsplit(base_url)
    host = url.hostname or "127.0.0.1"
    port = url.port or (443 if url.scheme == "https" else 80)
    target = (url.path.rstrip("/") + path) + (f"?{urlencode(params)}" if params else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {url.netloc}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    deadline = time.monotonic() + max_seconds
    try:
        sock = _connect(host, port, max_seconds, tls=url.scheme == "https")
    except OSError as error:  # ssl.SSLError included: a failed handshake is no connection
        return RawAnswer(None, {}, b"", f"no connection: {type(error).__name__}")
    with sock:  # the TLS socket itself when wrapped: closing the raw one would not close it
        sock.sendall(request)
        received, closed = _read(sock, deadline, max_bytes, until_head=True)
        if HEAD_END not in received:
            why = "the peer closed" if closed else f"no header block within {max_seconds:g}s"
            return RawAnswer(_status(received), {}, b"", why)
        head, _, rest = received.partition(HEAD_END)
        if not closed:
            linger = min(deadline, time.monotonic() + linger_seconds)
            more, _ = _read(sock, linger, max_bytes - len(received), until_head=False)
            rest += more
    return RawAnswer(_status(head), _headers(head), rest, "")


def _connect(host: str, port: int, timeout: float, *, tls: bool) -> socket.socket:
    """A connected socket, TLS-wrapped for https (the raw socket closed if the handshake fails)."""
    raw = socket.create_connection((host, port), timeout=timeout)
    if not tls:
        return raw
    try:
        return ssl.create_default_context().wrap_socket(raw, server_hostname=host)
    except BaseException:
        raw.close()
        raise


def _read(
    sock: socket.socket, until: float, max_bytes: int, *, until_head: bool
) -> tuple[bytes, bool]:
    """Bytes until ``until``, ``max_bytes``, the peer's close (True) or, if ``until_head``, the
    end of the header block."""
    data = b""
    while len(data) < max_bytes:
        left = until - time.monotonic()
        if left <= 0:
            return data, False
        sock.settimeout(left)
        try:
            chunk = sock.recv(min(65536, max_bytes - len(data)))
        except TimeoutError:
            return data, False
        except OSError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
        if until_head and HEAD_END in data:
            return data, False
    return data, False


def _status(head: bytes) -> int | None:
    parts = head.split(b"\r\n", 1)[0].split(b" ")
    if len(parts) >= 2 and parts[0].startswith(b"HTTP/") and parts[1].isdigit():
        return int(parts[1])
    return None


def _headers(head: bytes) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in head.split(b"\r\n")[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            found[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return found
