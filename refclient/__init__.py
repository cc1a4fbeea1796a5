"""A reference client of the RCES status endpoint: a poller a Python game server can embed.

    from refclient import Config, Poller

    poller = Poller(Config(base_url, sdk_key, instance_id="eu-1-7"), on_change=print)
    poller.run_forever()          # or poll_once() to drive it by hand; stop() from any thread

``AsyncPoller`` is the asyncio flavour. Both drive one I/O-free core (``refclient.core``), so
they keep the same rules. ``refclient`` shares no code with ``conformance`` or ``refserver``.

Names are imported on first use, so ``python -m refclient`` can install its signal handlers
before the HTTP stack (about a second of imports on a busy machine) is loaded.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from refclient.version import __version__

if TYPE_CHECKING:
    from refclient.async_poller import AsyncPoller
    from refclient.config import Config
    from refclient.core import Outcome
    from refclient.errors import PermanentError
    from refclient.model import Changes, Configuration, Snapshot
    from refclient.sync_poller import Poller

_HOMES = {
    "AsyncPoller": "refclient.async_poller",
    "Changes": "refclient.model",
    "Config": "refclient.config",
    "Configuration": "refclient.model",
    "Outcome": "refclient.core",
    "PermanentError": "refclient.errors",
    "Poller": "refclient.sync_poller",
    "Snapshot": "refclient.model",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'refclient' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
