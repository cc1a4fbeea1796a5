"""An ASGI wrapper rewriting the reference server's JSON answers: the small correct-but-different
servers of ``test_fuzz_two_levels.py`` (each keeps the interface and departs from one unkeyed
convention of the reference's)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Rewrite = Callable[[str, int, Any], Any]  # (path, status, JSON body) -> the body to send


class JsonRewrite:
    """Answers as the wrapped app does, each JSON body passed through ``rewrite``."""

    def __init__(self, app: Any, rewrite: Rewrite) -> None:
        self.app = app
        self.rewrite = rewrite

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def hold(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            headers = [
                (k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"
            ]
            media = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            if body and media.startswith(b"application/json"):
                data = self.rewrite(scope["path"], int(start["status"]), json.loads(body))
                body = json.dumps(data).encode()
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, hold)


def walk(data: Any, edit: Callable[[dict[str, Any]], None]) -> Any:
    """``data`` with ``edit`` applied to every object in it (in place, depth first)."""
    if isinstance(data, dict):
        for value in data.values():
            walk(value, edit)
        edit(data)
    elif isinstance(data, list):
        for item in data:
            walk(item, edit)
    return data


def kebab_codes(path: str, status: int, data: Any) -> Any:
    """Error codes in kebab case: ``EXPERIMENT_NOT_FOUND`` -> ``experiment-not-found``."""
    if status >= 400 and isinstance(data, dict) and isinstance(data.get("errorCode"), str):
        data["errorCode"] = data["errorCode"].lower().replace("_", "-")
    return data


def _experiment(node: dict[str, Any]) -> bool:
    return "unitType" in node and "groups" in node and "status" in node


def active_word(path: str, status: int, data: Any) -> Any:
    """An active experiment's status word is ``active``, not ``running``."""

    def edit(node: dict[str, Any]) -> None:
        if _experiment(node) and node["status"] == "running":
            node["status"] = "active"

    return walk(data, edit) if "/experiments" in path else data


def lean_experiments(path: str, status: int, data: Any) -> Any:
    """Experiment records without ``rollout`` and ``terminatedAt``."""

    def edit(node: dict[str, Any]) -> None:
        if _experiment(node):
            node.pop("rollout", None)
            node.pop("terminatedAt", None)

    return walk(data, edit) if "/experiments" in path else data


def without(field: str, where: str) -> Rewrite:
    """Every object under paths containing ``where`` loses ``field``."""

    def rewrite(path: str, status: int, data: Any) -> Any:
        if where not in path:
            return data
        return walk(data, lambda node: node.pop(field, None))

    rewrite.__name__ = f"without_{field}"
    return rewrite
