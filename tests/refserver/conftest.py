"""Fixtures for refserver tests: real uvicorn servers on 127.0.0.1:0 over real SQLite files.

``make_server(**settings)`` starts a fresh server (stopped at teardown); ``server`` is one
shared per module; ``Api`` wraps an httpx client with the provisioned credentials. ``store`` is
a provisioned store without a server (``provisioned`` makes one of any ``Store``).
``target`` and ``http``: one server per module for the experiment end-to-end tests, with its
credentials (``experiment_api.ExperimentTarget``) and a client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from refserver import experiment_store, schema
from refserver.provisioning import access_token, provision, sdk_key
from refserver.runner import RunningServer, start_server
from refserver.store import Store
from tests.refserver.experiment_api import ExperimentTarget

StoreT = TypeVar("StoreT", bound=Store)


def provisioned(store: StoreT) -> StoreT:
    """``store`` as the server leaves it: its schema, the experiment tables, and the provisioned
    applications, environments, keys and tokens."""
    store.apply_schema(schema.DDL)
    store.apply_schema(experiment_store.DDL)
    provision(store)
    return store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A provisioned store over a throwaway SQLite file, no server; closed at teardown."""
    opened = provisioned(Store(tmp_path / "store.db"))
    yield opened
    opened.close()


@dataclass
class Api:
    """A client of one running server, with the credentials it provisioned."""

    server: RunningServer
    client: httpx.Client
    pat: str
    viewer_pat: str
    foreign_pat: str
    keys: dict[str, str]  # label -> key: development, production, all, legacy, foreign

    def pat_headers(self, environment_id: int = 1, pat: str | None = None) -> dict[str, str]:
        return {"authorization": f"Bearer {pat or self.pat}", "environment_id": str(environment_id)}

    def create(
        self,
        name: str = "settings",
        configuration: Any = None,
        environment_id: int = 1,
        **extra: Any,
    ) -> httpx.Response:
        body = {"name": name, "configuration": configuration, **extra}
        return self.client.post(
            "/application/1/v2/configuration", json=body, headers=self.pat_headers(environment_id)
        )

    def created(self, configuration: Any = None, **kwargs: Any) -> dict[str, Any]:
        response = self.create(configuration=configuration, **kwargs)
        assert response.status_code == 201, response.text
        record: dict[str, Any] = response.json()
        return record

    def patch(
        self, configuration_id: int, body: Any, environment_id: int = 1, application_id: int = 1
    ) -> httpx.Response:
        return self.client.patch(
            f"/application/{application_id}/v2/configuration/{configuration_id}",
            json=body,
            headers=self.pat_headers(environment_id),
        )

    def status(self, key: str = "all", **headers: str) -> httpx.Response:
        return self.client.get(
            "/sdk/v2/status", headers={"authorization": self.keys[key], **headers}
        )

    def bootstrap(self, key: str = "all", **headers: str) -> httpx.Response:
        return self.client.get(
            "/sdk/v2/bootstrap", headers={"authorization": self.keys[key], **headers}
        )


def api_for(server: RunningServer) -> Api:
    with server.state.store.read() as conn:
        keys = {
            label: sdk_key(conn, label)[0]
            for label in ("development", "production", "all", "legacy", "foreign")
        }
        return Api(
            server=server,
            client=httpx.Client(base_url=server.base_url, timeout=10.0),
            pat=access_token(conn, "demo"),
            viewer_pat=access_token(conn, "viewer"),
            foreign_pat=access_token(conn, "foreign"),
            keys=keys,
        )


ServerFactory = Callable[..., RunningServer]


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start servers on fresh databases (or ``db_path=``); all stopped at teardown."""
    started: list[RunningServer] = []

    def make(db_path: Path | None = None, **settings: Any) -> RunningServer:
        path = db_path or tmp_path / f"refserver-{len(started)}.db"
        server = start_server(path, **settings)
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def make_api(make_server: ServerFactory) -> Iterator[Callable[..., Api]]:
    """Start a server with settings and return an Api for it."""
    apis: list[Api] = []

    def make(**settings: Any) -> Api:
        api = api_for(make_server(**settings))
        apis.append(api)
        return api

    yield make
    for api in apis:
        api.client.close()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """One server per test module, with a high rate limit so tests do not trip it."""
    server = start_server(
        tmp_path_factory.mktemp("refserver") / "shared.db", rate_burst=100_000, rate_refill=10_000
    )
    client = api_for(server)
    yield client
    client.client.close()
    server.stop()


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExperimentTarget]:
    """A server for the experiment end-to-end tests of one module (rate limits out of the way)."""
    db = Path(tmp_path_factory.mktemp("experiments")) / "refserver.db"
    with start_server(db, rate_burst=10_000, rate_refill=10_000.0) as server:
        with server.state.store.read() as conn:
            pat = access_token(conn, "demo")
            viewer = access_token(conn, "viewer")
            key, _ = sdk_key(conn, "development")
        yield ExperimentTarget(server.base_url, pat, key, viewer)


@pytest.fixture(scope="module")
def http(target: ExperimentTarget) -> Iterator[httpx.Client]:
    with target.client() as client:
        yield client
