"""The core tables (owners, projects, memberships, tokens, keys, environments, configurations,
snapshots). Experiment tables live in ``experiment_store.DDL`` and may reference these."""

from __future__ import annotations

DDL = """
CREATE TABLE IF NOT EXISTS owners (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS projects (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memberships (
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    project_id INTEGER NOT NULL REFERENCES projects(id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
    PRIMARY KEY (owner_id, project_id)
);
CREATE TABLE IF NOT EXISTS access_tokens (
    token TEXT PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES owners(id),
    label TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS environments (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id),
    alias TEXT NOT NULL,
    UNIQUE (project_id, alias)
);
CREATE TABLE IF NOT EXISTS sdk_keys (
    key TEXT PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id),
    environments TEXT NOT NULL,
    label TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS configurations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    application_id INTEGER NOT NULL REFERENCES projects(id),
    environment_id INTEGER NOT NULL REFERENCES environments(id),
    name TEXT NOT NULL,
    alias TEXT NOT NULL,
    description TEXT NOT NULL,
    document TEXT NOT NULL,
    private_keys TEXT NOT NULL,
    comments TEXT NOT NULL,
    extra TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
);
CREATE INDEX IF NOT EXISTS configurations_by_environment
    ON configurations (application_id, environment_id, id);
CREATE TABLE IF NOT EXISTS snapshots (
    environment_id INTEGER PRIMARY KEY REFERENCES environments(id),
    application_id INTEGER NOT NULL,
    hash TEXT NOT NULL,
    status_body TEXT NOT NULL,
    bootstrap_body TEXT NOT NULL,
    expires_at TEXT
);
"""
