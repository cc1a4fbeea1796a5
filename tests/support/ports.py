"""A loopback port for a test to hand out: free when asked (bound once by the system, then closed),
so nothing listens on it until the test starts something there."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
