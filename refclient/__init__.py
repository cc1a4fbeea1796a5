"""A reference client of the RCES status endpoint: a poller a Python game server can embed.

    from refclient import Config, Poller

    poller = Poller(Config(base_url, sdk_key, instance_id="eu-1-7"), on_change=print)
    poller.run_forever()          # or poll_once() to drive it by hand; stop() from any thread

``AsyncPoller`` is the asyncio flavour. Both drive one I/O-free core (``refclient.core``), so
they keep the same rules. ``refclient`` shares no code with ``conformance`` or ``refserver``.
"""

from __future__ import annotations

from refclient.async_poller import AsyncPoller
from refclient.config import Config
from refclient.core import Outcome
from refclient.errors import PermanentError
from refclient.model import Changes, Configuration, Snapshot
from refclient.sync_poller import Poller
from refclient.version import __version__

__all__ = [
    "AsyncPoller",
    "Changes",
    "Config",
    "Configuration",
    "Outcome",
    "PermanentError",
    "Poller",
    "Snapshot",
    "__version__",
]
