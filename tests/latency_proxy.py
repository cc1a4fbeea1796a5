"""A latency-adding reverse proxy on loopback: a target that is correct, only far away.

Every byte the client sends reaches the upstream server ``delay / 2`` later, and every byte the
server answers reaches the client ``delay / 2`` later, so one request/response exchange costs
``delay`` more, the way a network path with that round-trip time does (a new connection pays one
round trip more, for the handshake). The relay works at the TCP level, one upstream connection
per client connection, in order and without parsing HTTP: with ``delay`` 0 it is a plain reverse
proxy (the server sees the proxy's address, not the client's). Keep-alive, chunked bodies and
pipelining all pass through untouched.

It lives with the tests (like ``faulty/``), never in the ``conformance`` package, and runs in a
process of its own so its CPU does not compete with the server's or the suite's interpreter:

    python tests/latency_proxy.py --upstream http://127.0.0.1:8000 --delay-ms 40

prints ``listening <url>`` once it accepts connections. ``LatencyProxy`` starts and stops that
process for tests and benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

CHUNK = 65536


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, one_way: float) -> None:
    """Copy ``source`` to ``sink``, each chunk written ``one_way`` seconds after it was read."""
    queue: asyncio.Queue[tuple[float, bytes | None]] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    async def read() -> None:
        while True:
            try:
                data = await source.read(CHUNK)
            except (ConnectionError, OSError):
                data = b""
            await queue.put((loop.time() + one_way, data or None))
            if not data:
                return

    reader = asyncio.create_task(read())
    try:
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                with contextlib.suppress(OSError, RuntimeError):
                    if sink.can_write_eof():
                        sink.write_eof()
                return
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        return
    finally:
        reader.cancel()


class Relay:
    """Accepts clients and relays each to its own upstream connection, ``delay`` later."""

    def __init__(self, upstream: str, delay_seconds: float) -> None:
        parts = urlsplit(upstream)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.delay = delay_seconds
        self.connections = 0

    async def handle(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        self.connections += 1
        try:
            if self.delay:
                await asyncio.sleep(self.delay)  # the handshake's round trip
            server_in, server_out = await asyncio.open_connection(self.host, self.port)
        except OSError:
            client_out.close()
            return
        half = self.delay / 2
        try:
            await asyncio.gather(
                _pump(client_in, server_out, half), _pump(server_in, client_out, half)
            )
        finally:
            for writer in (server_out, client_out):
                with contextlib.suppress(OSError, RuntimeError):
                    writer.close()


async def serve(upstream: str, delay_seconds: float, port: int) -> None:
    relay = Relay(upstream, delay_seconds)
    server = await asyncio.start_server(relay.handle, "127.0.0.1", port, backlog=4096)
    bound = server.sockets[0].getsockname()[1]
    print(f"listening http://127.0.0.1:{bound}", flush=True)
    async with server:
        await server.serve_forever()


class LatencyProxy:
    """The relay in a child process: ``with LatencyProxy(url, 40) as proxy: proxy.base_url``."""

    def __init__(self, upstream: str, delay_ms: float) -> None:
        self.upstream = upstream
        self.delay_ms = delay_ms
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> LatencyProxy:
        self._process = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--upstream",
                self.upstream,
                "--delay-ms",
                str(self.delay_ms),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()  # '' when the process died
        if not line.startswith("listening "):
            self.stop()
            raise RuntimeError(f"the latency proxy did not start: {line!r}")
        self.base_url = line.split()[1]
        return self

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None

    def __enter__(self) -> LatencyProxy:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="the server's base URL (http only)")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="added round trip, in ms")
    parser.add_argument("--port", type=int, default=0, help="listening port (default: free)")
    options = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(options.upstream, options.delay_ms / 1000, options.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
