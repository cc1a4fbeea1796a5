"""The target profile this server writes for the suite (docs/target-profile.md).

It names the provisioned credentials and project ids, and states every reference choice
(header names, body fields, errors, statuses), the rate limit and the load-shedding trigger
matching the running server's settings. The file is written with mode 0600: it holds secrets.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from refserver.provisioning import access_token, sdk_key
from refserver.settings import Settings
from refserver.store import Store

CAPABILITIES = (
    "experiments",
    "bootstrap",
    "bootstrap_identity",
    "key_order",
    "rate_limit",
    "load_shedding",
    "legacy_sdk_key",
)


def default_path(db_path: Path) -> Path:
    """``<db>.profile.yaml`` next to the database."""
    return db_path.with_name(db_path.name + ".profile.yaml")


def _sdk_key(store: Store, label: str) -> dict[str, Any]:
    with store.read() as conn:
        key, scope = sdk_key(conn, label)
    return {"key": key, "environments": scope}


def build(store: Store, settings: Settings) -> dict[str, Any]:
    """The profile of this server as a plain mapping."""
    with store.read() as conn:
        pat = access_token(conn, "demo")
        foreign_key = sdk_key(conn, "foreign")[0]
    load_shedding: dict[str, Any] = (
        {"provoke": "forced"}
        if settings.force_shedding
        else {"provoke": "burst", "burst_requests": max(400, settings.shed_threshold * 2 + 100)}
    )
    load_shedding.update({"window_seconds": 1.0, "settle_seconds": 1.5})
    return {
        "profile_version": 1,
        "conventions": "production",  # the reference's choices are the production conventions
        "credentials": {
            "pat": pat,
            "sdk_keys": [_sdk_key(store, label) for label in ("development", "production", "all")],
            "legacy_sdk_key": _sdk_key(store, "legacy"),
            "foreign_sdk_key": foreign_key,
        },
        "project": {
            "application_id": 1,
            "environments": {"development": 1, "production": 2},
            "foreign_application_id": 2,
            "foreign_environment_id": 3,
        },
        "headers": {
            "environment": "environment",
            "instance_id": "server-id",
            "numeric": "project-id",
            "sdk_version": "sdkversion",
            "unit_id": "unit-id",
            "unit_type": "unit-type",
            "unit_context": "unit-context",
        },
        "bodies": {
            "create": {
                "content": "configuration",
                "private_keys": "privateKeys",
                "comments": "comments",
            },
            "patch": {"operations": "operations", "base_hash": "baseHash", "key_order": "keyOrder"},
        },
        "errors": {
            "code_field": "errorCode",
            "message_field": "message",
            "missing_credentials_status": [401],
            "forbidden_status": 403,
        },
        "statuses": {"create_configuration": 201, "create_experiment": 201},
        "conditional": {"require_list_and_weak": True},
        "rate_limit": {
            "burst": settings.rate_burst,
            "refill_per_second": settings.rate_refill,
            "scope": settings.rate_scope,
        },
        "load_shedding": load_shedding,
        "capabilities": dict.fromkeys(CAPABILITIES, True),
    }


def write(store: Store, settings: Settings, path: Path) -> Path:
    """Write the profile YAML with mode 0600 and return its path."""
    text = yaml.safe_dump(build(store, settings), sort_keys=False)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    return path
