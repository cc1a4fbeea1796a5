"""A latency-adding reverse proxy on loopback: a target that is correct, only far away.

Every byte the client sends reaches the upstream server ``delay / 2`` later, and every byte the
server answers reaches the client ``delay / 2`` later, so one request/response exchange costs
``delay`` more, the way a network path with that round-trip time does (a new connection pays one
round trip more, for the handshake). The relay works at the TCP level, one upstream connection
per client connection, in order and without parsing HTTP: with ``delay`` 0 it is a plain reverse
proxy (the server sees the proxy's address, not the client's). Keep-alive, chunked bodies and
pipelining all pass through untouched.

It can also cap throughput, the way a small server or a busy gateway does: ``--max-concurrent N``
queues a request while N answers are outstanding, ``--max-per-second N`` lets at most N requests
a second through (evenly spaced), queueing the rest in arrival order. A request is counted from
the first byte relayed towards the server after the previous answer on its connection began
(HTTP/1.1 without pipelining) until the first byte of its answer.

It lives with the tests (like ``faulty/``), never in the ``conformance`` package, and runs in a
process of its own so its CPU does not compete with the server's or the suite's interpreter:

    python tests/support/latency_proxy.py --upstream http://127.0.0.1:8000 --delay-ms 40

prints ``listening <url>`` once it accepts connections. ``LatencyProxy`` starts and stops that
process for tests and benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

CHUNK = 65536


class Throttle:
    """The caps shared by every connection: answers outstanding and requests per second."""

    def __init__(self, max_concurrent: int, max_per_second: float) -> None:
        self.slots = asyncio.Semaphore(max_concurrent) if max_concurrent > 0 else None
        self.spacing = 1.0 / max_per_second if max_per_second > 0 else 0.0
        self.next_at = 0.0
        self.order = asyncio.Lock()

    async def admit(self) -> None:
        """Wait until one more request may reach the server."""
        async with self.order:
            if self.slots is not None:
                await self.slots.acquire()
            if self.spacing:
                loop = asyncio.get_running_loop()
                wait = self.next_at - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.next_at = max(self.next_at, loop.time()) + self.spacing

    def answered(self) -> None:
        if self.slots is not None:
            self.slots.release()


class Exchange:
    """One connection's state under a ``Throttle``: whether a request holds a slot."""

    def __init__(self, throttle: Throttle | None) -> None:
        self.throttle = throttle
        self.holding = False

    async def before_request_bytes(self) -> None:
        if self.throttle is not None and not self.holding:
            await self.throttle.admit()
            self.holding = True

    async def before_answer_bytes(self) -> None:
        if self.throttle is not None and self.holding:
            self.holding = False
            self.throttle.answered()

    def close(self) -> None:
        if self.throttle is not None and self.holding:
            self.holding = False
            self.throttle.answered()


async def _pump(
    source: asyncio.StreamReader,
    sink: asyncio.StreamWriter,
    one_way: float,
    before_write: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Copy ``source`` to ``sink``, each chunk written ``one_way`` seconds after it was read
    (and after ``before_write`` let it through)."""
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
            if before_write is not None:
                await before_write()
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        return
    finally:
        reader.cancel()


class Relay:
    """Accepts clients and relays each to its own upstream connection, ``delay`` later."""

    def __init__(self, upstream: str, delay_seconds: float, throttle: Throttle | None) -> None:
        parts = urlsplit(upstream)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.delay = delay_seconds
        self.throttle = throttle
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
        exchange = Exchange(self.throttle)
        try:
            await asyncio.gather(
                _pump(client_in, server_out, half, exchange.before_request_bytes),
                _pump(server_in, client_out, half, exchange.before_answer_bytes),
            )
        finally:
            exchange.close()
            for writer in (server_out, client_out):
                with contextlib.suppress(OSError, RuntimeError):
                    writer.close()


async def serve(
    upstream: str,
    delay_seconds: float,
    port: int,
    max_concurrent: int = 0,
    max_per_second: float = 0,
) -> None:
    capped = max_concurrent > 0 or max_per_second > 0
    relay = Relay(
        upstream, delay_seconds, Throttle(max_concurrent, max_per_second) if capped else None
    )
    server = await asyncio.start_server(relay.handle, "127.0.0.1", port, backlog=4096)
    bound = server.sockets[0].getsockname()[1]
    print(f"listening http://127.0.0.1:{bound}", flush=True)
    async with server:
        await server.serve_forever()


class LatencyProxy:
    """The relay in a child process: ``with LatencyProxy(url, 40) as proxy: proxy.base_url``."""

    def __init__(
        self, upstream: str, delay_ms: float, *, max_concurrent: int = 0, max_per_second: float = 0
    ) -> None:
        self.upstream = upstream
        self.delay_ms = delay_ms
        self.caps = [
            "--max-concurrent",
            str(max_concurrent),
            "--max-per-second",
            str(max_per_second),
        ]
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
                *self.caps,
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
    parser.add_argument(
        "--max-concurrent", type=int, default=0, help="answers outstanding at most (0: no cap)"
    )
    parser.add_argument(
        "--max-per-second", type=float, default=0, help="requests let through a second (0: no cap)"
    )
    options = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve(
                options.upstream,
                options.delay_ms / 1000,
                options.port,
                options.max_concurrent,
                options.max_per_second,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
