"""What one running app holds (store, caches, limiter, writers) and how handlers reach it.

Handlers call ``state_of(request)``; the app factory puts the ``AppState`` on ``app.state.rces``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request

from refserver.auth import SdkKeys
from refserver.group_commit import GroupCommit
from refserver.ratelimit import RateLimiter
from refserver.settings import Settings
from refserver.shedding import LoadMeter
from refserver.snapshot import SnapshotCache
from refserver.store import Store
from refserver.unit_bootstrap import Bases


@dataclass
class AppState:
    """The long-lived objects of one server instance."""

    settings: Settings
    store: Store
    snapshots: SnapshotCache
    limiter: RateLimiter
    load: LoadMeter
    keys: SdkKeys
    unit_writes: GroupCommit  # per-unit bootstrap writes, committed in batches
    bases: Bases = field(default_factory=Bases)  # parsed stored bootstraps, per environment
    environment_ids: dict[tuple[int, str], int] = field(default_factory=dict)


def state_of(request: Request) -> AppState:
    """The AppState of the app serving this request."""
    state: AppState = request.app.state.rces
    return state
