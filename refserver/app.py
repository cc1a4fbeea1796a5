"""The app factory and the routes table: every served operation, by operationId.

``create_app(settings)`` opens the store, applies the core and experiment schemas, provisions a
fresh database, and returns a Starlette app whose ``app.state.rces`` is the ``AppState``
(handlers reach it with ``refserver.state.state_of(request)``). Experiment routes come from
``refserver.experiments.routes()``. Middleware: the access log, then ``StatusFastPath`` (a GET of
the status, the hot path, answered without the router).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from refserver import experiment_store, experiments, schema
from refserver.access_log import AccessLog
from refserver.auth import SdkKeys
from refserver.configurations import create_configuration, patch_configuration
from refserver.errors import error_handlers
from refserver.group_commit import GroupCommit
from refserver.provisioning import provision
from refserver.ratelimit import RateLimiter
from refserver.sdk import BOOTSTRAP_PATH, STATUS_PATH, sdk_bootstrap, sdk_status
from refserver.settings import Settings
from refserver.shedding import LoadMeter
from refserver.snapshot import SnapshotCache
from refserver.state import AppState
from refserver.status_fast_path import StatusFastPath
from refserver.store import Store

Endpoint = Callable[[Request], Awaitable[Response]]

# operationId, method, path, endpoint: the routes this module serves (experiments add theirs).
# The SDK routes come first: Starlette tries routes in order. A GET of the status is answered
# before the router, by StatusFastPath; the route still serves HEAD and a non-empty root_path.
ROUTES: tuple[tuple[str, str, str, Endpoint], ...] = (
    ("getSdkStatus", "GET", STATUS_PATH, sdk_status),
    ("getSdkBootstrap", "GET", BOOTSTRAP_PATH, sdk_bootstrap),
    (
        "createConfiguration",
        "POST",
        "/application/{applicationId}/v2/configuration",
        create_configuration,
    ),
    (
        "patchConfiguration",
        "PATCH",
        "/application/{applicationId}/v2/configuration/{configurationId}",
        patch_configuration,
    ),
)


def routes() -> list[BaseRoute]:
    """Starlette routes of the table, then the experiment routes."""
    table: list[BaseRoute] = [
        Route(path, endpoint, methods=[method], name=operation_id)
        for operation_id, method, path, endpoint in ROUTES
    ]
    return table + experiments.routes()


def open_state(settings: Settings) -> AppState:
    """Open the store (schema applied, provisioned if fresh) and build the app's state."""
    store = Store(settings.db_path)
    store.apply_schema(schema.DDL)
    store.apply_schema(experiment_store.DDL)
    if settings.provision:
        provision(store)
    return AppState(
        settings=settings,
        store=store,
        snapshots=SnapshotCache(store),
        limiter=RateLimiter(settings.rate_burst, settings.rate_refill),
        load=LoadMeter(
            settings.shed_threshold,
            forced=settings.force_shedding,
            interval_seconds=settings.shed_interval_seconds,
            jitter_ratio=settings.shed_jitter_ratio,
        ),
        keys=SdkKeys(store),
        unit_writes=GroupCommit(store, changes_cached_state=False),
    )


def create_app(settings: Settings) -> Starlette:
    """The reference server as an ASGI app."""
    state = open_state(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        state.unit_writes.close()
        state.store.close()

    app = Starlette(
        routes=routes(),
        middleware=[Middleware(AccessLog), Middleware(StatusFastPath)],
        exception_handlers=error_handlers(),
        lifespan=lifespan,
    )
    app.state.rces = state
    return app
