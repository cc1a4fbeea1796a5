"""Refused connections, observably: a TCP front that, while its instance's script says "reset",
accepts each connection, records the attempt and resets it at once; otherwise it splices the
connection through to the scripted server.

A truly refused connection (nothing listening) leaves no trace to judge a client's retries by; a
connection reset on accept is the same transport failure to the client, and the attempt is
recorded with its time. The scenario answers with ``Connection: close``, so every request of the
client comes on a connection of its own and meets the doorman.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import TYPE_CHECKING

from conformance.stages.client.recording import Recorded
from conformance.stages.client.script import InstanceScript
from conformance.stages.client.settings import STATUS_PATH

if TYPE_CHECKING:
    from conformance.stages.client.server import ScriptedApp

CHUNK = 65536


class Doorman:
    """One instance's front door."""

    def __init__(
        self, sock: socket.socket, upstream_port: int, script: InstanceScript, app: ScriptedApp
    ) -> None:
        self.sock = sock
        self.upstream_port = upstream_port
        self.script = script
        self.app = app
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accepted, sock=self.sock)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        now = self.app.now()
        if self.script.peek_step(now).answer == "reset":
            self._record_reset(now)
            _reset(writer)
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            _reset(writer)
            return
        try:
            await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))
        finally:
            for each in (writer, up_writer):
                each.close()
            if task is not None:
                self._tasks.discard(task)

    def _record_reset(self, now: float) -> None:
        script = self.script
        # Counted as a status attempt (the client's poll failed on it), but nothing was read:
        # no method, path, hash or header to judge or to show.
        record = Recorded(
            instance=script.name,
            seq=script.saw_request(now),
            method="",
            path=STATUS_PATH,
            query={},
            headers={},
            arrived=now,
            kind="status",
            answered=now,
            note="connection reset on accept (a refused connection)",
            read=False,
        )
        record.step = script.take_step(now)[0]
        self.app.records[script.name].append(record)


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with an RST (SO_LINGER 0), as a refusing host would answer."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            if writer.can_write_eof():
                writer.write_eof()
