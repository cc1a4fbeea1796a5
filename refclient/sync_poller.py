"""``Poller``: the blocking flavour, over ``httpx.Client``, for game servers with threads.

poller = Poller(config, on_change=apply)
threading.Thread(target=poller.run_forever, daemon=True).start()
...
poller.current().document("economy")     # from any thread
poller.stop()                            # from any thread or a signal handler
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType

import httpx

from refclient.config import Config
from refclient.core import Outcome, PollCore, Refetch, Reply, Request
from refclient.errors import PermanentError
from refclient.model import Changes, Snapshot
from refclient.redaction import redact

LOG = logging.getLogger("refclient")

ChangeCallback = Callable[[Changes], object]


class Poller:
    """Polls the status endpoint until ``stop()``; calls ``on_change`` after each refetch.

    ``client`` may be an ``httpx.Client`` of the caller's (its base URL is used as given; the
    poller does not close it). Exceptions of ``on_change`` are logged, never stop the poller.
    """

    def __init__(
        self,
        config: Config,
        on_change: ChangeCallback | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.config = config
        self.core = PollCore(config)
        self._on_change = on_change
        self._owns_client = client is None
        self._client = client or httpx.Client(base_url=config.base_url, timeout=config.timeout)
        self._stopped = threading.Event()

    def current(self) -> Snapshot:
        """The snapshot held now (documents of every configuration)."""
        return self.core.snapshot

    def poll_once(self) -> Outcome:
        """One poll, with its refetch if any; returns how it ended and the wait it chose.

        Raises ``PermanentError`` when the service refuses the client for good.
        """
        core = self.core
        try:
            step = core.on_poll_reply(self._send(core.poll_request()))
            if isinstance(step, Refetch):
                replies = []
                for request in step.requests:
                    replies.append(self._send(request))
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
                self._on_change(step.changes)
            except Exception as error:  # a game's callback must not kill its poller
                LOG.exception("on_change raised %s", redact(repr(error), self.config.sdk_key))
        return step

    def run_forever(self) -> None:
        """Poll, wait, repeat, until ``stop()``. Raises ``PermanentError`` if refused."""
        while not self._stopped.is_set():
            outcome = self.poll_once()
            if self._stopped.is_set():
                break
            self._sleep(outcome.delay)

    def stop(self) -> None:
        """Ask ``run_forever`` to return: at once if waiting, else after the poll in flight.

        Safe from any thread. From a signal handler only while ``run_forever`` runs in another
        thread (setting the event takes a lock the interrupted thread may hold).
        """
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        """Whether ``stop()`` was called."""
        return self._stopped.is_set()

    def close(self) -> None:
        """Close the HTTP client if the poller made it."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Poller:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        self.close()

    def _sleep(self, seconds: float) -> None:
        if self.config.sleep is not None:
            self.config.sleep(seconds)
        else:
            self._stopped.wait(seconds)

    def _send(self, request: Request) -> Reply:
        response = self._client.get(
            request.path, headers=dict(request.headers), params=dict(request.params)
        )
        return Reply(response.status_code, dict(response.headers.items()), response.content)
