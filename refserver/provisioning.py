"""Demo data for a fresh database (docs/reference-choices.md, "Provisioning").

Project 1 "demo" (environments development=1, production=2) owned by ``demo``, who has a PAT;
a ``viewer`` owner with read-only rights on it; SDK keys scoped to development, production,
both, and a legacy ``sdk_`` key; project 2 "foreign" (environment 3, development) owned by
``foreign`` with its own key and one configuration. Every secret is random per database.
"""

from __future__ import annotations

import json
import secrets
import sqlite3

from refserver import snapshot
from refserver.configurations import NewConfiguration, insert_configuration
from refserver.store import Store

OWNERS = ((1, "demo"), (2, "foreign"), (3, "viewer"))
PROJECTS = ((1, "demo"), (2, "foreign"))
MEMBERSHIPS = ((1, 1, "owner"), (2, 2, "owner"), (3, 1, "viewer"))
ENVIRONMENTS = ((1, 1, "development"), (2, 1, "production"), (3, 2, "development"))
# label, owner id
ACCESS_TOKENS = (("demo", 1), ("foreign", 2), ("viewer", 3))
# label, prefix, project id, environment scope
SDK_KEYS = (
    ("development", "svc_pk_", 1, ["development"]),
    ("production", "svc_pk_", 1, ["production"]),
    ("all", "svc_pk_", 1, ["development", "production"]),
    ("legacy", "sdk_", 1, ["development", "production"]),
    ("foreign", "svc_pk_", 2, ["development"]),
)
FOREIGN_CONFIGURATION = NewConfiguration(
    name="foreign settings", alias="foreign-settings", document={"foreign": True}
)


def _secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(24)


def _provision(conn: sqlite3.Connection) -> None:
    conn.executemany("INSERT INTO owners (id, name) VALUES (?, ?)", OWNERS)
    conn.executemany("INSERT INTO projects (id, name) VALUES (?, ?)", PROJECTS)
    conn.executemany(
        "INSERT INTO memberships (owner_id, project_id, role) VALUES (?, ?, ?)", MEMBERSHIPS
    )
    conn.executemany(
        "INSERT INTO environments (id, project_id, alias) VALUES (?, ?, ?)", ENVIRONMENTS
    )
    conn.executemany(
        "INSERT INTO access_tokens (token, owner_id, label) VALUES (?, ?, ?)",
        [(_secret("svc_pat_"), owner, label) for label, owner in ACCESS_TOKENS],
    )
    conn.executemany(
        "INSERT INTO sdk_keys (key, project_id, environments, label) VALUES (?, ?, ?, ?)",
        [
            (_secret(prefix), project, json.dumps(scope), label)
            for label, prefix, project, scope in SDK_KEYS
        ],
    )
    insert_configuration(conn, 2, 3, FOREIGN_CONFIGURATION)
    for environment_id, project_id, _alias in ENVIRONMENTS:
        snapshot.rebuild(conn, project_id, environment_id)


def provision(store: Store) -> bool:
    """Provision the demo data when the database has no project yet; True if it did."""
    with store.write() as conn:
        if conn.execute("SELECT 1 FROM projects LIMIT 1").fetchone() is not None:
            return False
        _provision(conn)
        return True


def access_token(conn: sqlite3.Connection, label: str) -> str:
    """The PAT provisioned under a label (``demo``, ``viewer``, ``foreign``)."""
    row = conn.execute("SELECT token FROM access_tokens WHERE label = ?", (label,)).fetchone()
    if row is None:
        raise LookupError(f"no access token labelled {label!r}")
    return str(row["token"])


def sdk_key(conn: sqlite3.Connection, label: str) -> tuple[str, list[str]]:
    """(key, environment scope) of the SDK key provisioned under a label."""
    row = conn.execute(
        "SELECT key, environments FROM sdk_keys WHERE label = ?", (label,)
    ).fetchone()
    if row is None:
        raise LookupError(f"no SDK key labelled {label!r}")
    return str(row["key"]), list(json.loads(row["environments"]))
