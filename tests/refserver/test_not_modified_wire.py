"""The status 304 on the wire, on either HTTP stack: status line and headers, then nothing.

Two polls are pipelined on one raw connection, so a body after the first 304 would show up
between the two answers."""

from __future__ import annotations

import contextlib
import re
import socket
from pathlib import Path

import pytest

from refserver.http_stack import FAST, PLAIN, HttpStack, installed
from refserver.provisioning import sdk_key
from refserver.runner import start_server

ANSWER = re.compile(rb"HTTP/1\.1 (\d{3}) [^\r\n]*\r\n((?:[^\r\n]+\r\n)*)\r\n")


def exchange(base_url: str, request: bytes, answers: int) -> bytes:
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(request * answers)
        received = b""
        while (
            received.count(b"HTTP/1.1 ") < answers
            or b"\r\n\r\n" not in received[received.rfind(b"HTTP/1.1 ") :]
        ):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
        sock.settimeout(0.3)  # anything after the last answer's headers would be a body
        with contextlib.suppress(TimeoutError):
            received += sock.recv(65536)
    return received


@pytest.mark.parametrize("stack", [FAST, PLAIN], ids=str)
def test_304_is_headers_only(tmp_path: Path, stack: HttpStack) -> None:
    if stack.fast and not (installed("httptools") and installed("uvloop")):
        pytest.skip("the fast extra is not installed here")
    with start_server(tmp_path / "wire.db", stack=stack) as server:
        with server.state.store.read() as conn:
            key = sdk_key(conn, "all")[0]
        digest = server.state.snapshots.get(1, 1).hash
        poll = (
            f"GET /sdk/v2/status HTTP/1.1\r\nhost: x\r\nauthorization: {key}\r\n"
            f'environment: development\r\nif-none-match: "{digest}"\r\n\r\n'
        ).encode()
        received = exchange(server.base_url, poll, 2)
    answers = list(ANSWER.finditer(received))
    assert [m.group(1) for m in answers] == [b"304", b"304"], received
    assert b"".join(m.group(0) for m in answers) == received, "bytes beside the two 304s"
    for match in answers:
        names = [line.split(b":", 1)[0] for line in match.group(2).split(b"\r\n") if line]
        assert sorted(names) == [b"date", b"etag", b"server"], match.group(0)
        assert f'etag: "{digest}"\r\n'.encode() in match.group(2)
