"""``AsyncPoller``: the asyncio flavour, over ``httpx.AsyncClient``, for asyncio game servers.

poller = AsyncPoller(config, on_change=apply)      # on_change may be sync or async
task = asyncio.create_task(poller.run_forever())
...
poller.stop(); await task                         # stop() from the loop's thread
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType

import httpx

from refclient.config import Config
from refclient.core import Outcome, PollCore, Refetch, Reply, Request
from refclient.errors import PermanentError
from refclient.model import Changes, Snapshot
from refclient.redaction import redact

LOG = logging.getLogger("refclient")

AsyncChangeCallback = Callable[[Changes], Awaitable[object] | object]


class AsyncPoller:
    """The same poller as ``refclient.Poller`` (same core, same rules), awaiting instead."""

    def __init__(
        self,
        config: Config,
        on_change: AsyncChangeCallback | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.config = config
        self.core = PollCore(config)
        self._on_change = on_change
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(base_url=config.base_url, timeout=config.timeout)
        self._stopped = asyncio.Event()

    def current(self) -> Snapshot:
        """The snapshot held now (documents of every configuration)."""
        return self.core.snapshot

    async def poll_once(self) -> Outcome:
        """One poll, with its refetch if any; returns how it ended and the wait it chose.

        Raises ``PermanentError`` when the service refuses the client for good.
        """
        core = self.core
        try:
            step = core.on_poll_reply(await self._send(core.poll_request()))
            if isinstance(step, Refetch):
                replies = []
                for request in step.requests:
                    replies.append(await self._send(request))
                    if replies[-1].status != 200:
                        break
                step = core.on_refetch_replies(replies)
        except httpx.RequestError as error:
            step = core.on_transport_error(error)
        except PermanentError as error:
            LOG.error("poll stopped: %s", error)
            raise
        LOG.info("%s", step.describe())
        if step.changes and self._on_change is not None:
            try:
                result = self._on_change(step.changes)
                if inspect.isawaitable(result):
                    await result
            except Exception as error:  # a game's callback must not kill its poller
                LOG.exception("on_change raised %s", redact(repr(error), self.config.sdk_key))
        return step

    async def run_forever(self) -> None:
        """Poll, wait, repeat, until ``stop()``. Raises ``PermanentError`` if refused."""
        while not self._stopped.is_set():
            outcome = await self.poll_once()
            if self._stopped.is_set():
                break
            await self._sleep(outcome.delay)

    def stop(self) -> None:
        """Ask ``run_forever`` to return: at once if waiting, else after the poll in flight."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        """Whether ``stop()`` was called."""
        return self._stopped.is_set()

    async def aclose(self) -> None:
        """Close the HTTP client if the poller made it."""
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncPoller:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        await self.aclose()

    async def _sleep(self, seconds: float) -> None:
        if self.config.async_sleep is not None:
            await self.config.async_sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopped.wait(), seconds)

    async def _send(self, request: Request) -> Reply:
        response = await self._client.get(
            request.path, headers=dict(request.headers), params=dict(request.params)
        )
        return Reply(response.status_code, dict(response.headers.items()), response.content)
