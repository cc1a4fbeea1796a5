"""Response bodies and replies for refclient's unit tests: status and bootstrap snapshots."""

from __future__ import annotations

import json
from typing import Any

from refclient.core import Reply

KEY = "svc_pk_TESTKEY0123456789secret"


def entry(id: int, hash: str, alias: str | None = None, name: str | None = None) -> dict[str, Any]:
    alias = alias if alias is not None else f"config-{id}"
    return {"id": id, "name": name or alias, "alias": alias, "hash": hash}


def status(digest: str, *entries: dict[str, Any], polling: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "hash": digest,
        "configurations": list(entries),
        "primaryConfigurationId": entries[0]["id"] if entries else None,
        "experiments": {"user": [], "server": []},
        "requiredProperties": [],
    }
    if polling is not None:
        body["polling"] = polling
    return body


def bootstrap(digest: str, *entries: tuple[dict[str, Any], Any]) -> dict[str, Any]:
    """A bootstrap body: each (summary, document) pair becomes an entry with its document."""
    body = status(digest, *(summary for summary, _ in entries))
    body["configurations"] = [
        {**summary, "configuration": document, "privacy": []} for summary, document in entries
    ]
    return body


def ok(body: dict[str, Any]) -> Reply:
    return Reply(
        200,
        {"etag": f'"{body["hash"]}"', "content-type": "application/json"},
        json.dumps(body).encode(),
    )


def not_modified(digest: str = "h") -> Reply:
    return Reply(304, {"etag": f'"{digest}"'})


def error(status: int, code: str = "ERR", message: str = "no", **headers: str) -> Reply:
    body = json.dumps({"errorCode": code, "message": message}).encode()
    return Reply(status, {"content-type": "application/json", **headers}, body)
