"""The snapshot defects of the adversarial section: what a snapshot shows of the content it
summarises, wrong at a point a hand-written example is unlikely to look (a nested member left out
of a configuration's hash, a long name cut, a repeated alias listed once, a weight frozen at
create, an empty object served as an array on the SDK read path)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response
from faulty.context import Context
from faulty.recipes import BOOTSTRAP, EXP_CREATE, SNAPSHOT, chain, edit_json, summaries


def _replacer_filtered(document: Any) -> Any:
    """``JSON.stringify(doc, Object.keys(doc).sort())``: a replacer array keeps, at every depth,
    only the members whose names are top-level keys, in the array's order."""
    if isinstance(document, dict):
        allowed = sorted(document)
    elif isinstance(document, list):
        allowed = [str(i) for i in range(len(document))]
    else:
        allowed = []

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(value[k]) for k in allowed if k in value}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(document)


def _replacer_hash(document: Any) -> str:
    text = json.dumps(_replacer_filtered(document), separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _rehash(data: Any, documents: dict[Any, Any]) -> Any:
    for entry in data.get("configurations", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict) and entry.get("id") in documents:
            entry["hash"] = _replacer_hash(documents[entry["id"]])
    return data


async def config_hash_replacer(request: Request, forward: Forward) -> Response:
    response = await forward(request)
    data = response.json()
    if response.status != 200 or not isinstance(data, dict) or not SNAPSHOT(request):
        return response
    if BOOTSTRAP(request):
        entries = data.get("configurations", [])
        documents = {e.get("id"): e.get("configuration") for e in entries if isinstance(e, dict)}
    else:
        full = await forward(
            request.replace(path="/sdk/v2/bootstrap")
            .with_header("if-none-match", None)
            .without_param("hash")
        )
        entries = full.json().get("configurations", []) if full.status == 200 else []
        documents = {e.get("id"): e.get("configuration") for e in entries if isinstance(e, dict)}
        if not documents:
            return response
    return response.with_json(_rehash(data, documents))


def name_truncated(entry: dict[str, Any]) -> None:
    if isinstance(entry.get("name"), str):
        entry["name"] = entry["name"][:64]


def unique_by_alias(data: Any, request: Request) -> Any:
    """The snapshot's configurations built as a map keyed by alias: the first of a repeated
    alias stays, the others are not listed."""
    seen: set[Any] = set()
    kept = []
    for entry in data.get("configurations", []):
        alias = entry.get("alias") if isinstance(entry, dict) else None
        if alias is None or alias not in seen:
            kept.append(entry)
        seen.add(alias)
    data["configurations"] = kept
    return data


def weights_at_create(ctx: Context) -> Handler:
    created: dict[tuple[Any, Any], Any] = {}

    def learn(data: Any, request: Request) -> Any:
        for group in data.get("groups") or []:
            if isinstance(group, dict):
                created[(data.get("id"), group.get("id"))] = group.get("weight")
        return data

    def show(data: Any, request: Request) -> Any:
        for summary in summaries(data):
            for group in summary.get("groups") or []:
                key = (summary.get("id"), group.get("id"))
                if isinstance(group, dict) and key in created:
                    group["weight"] = created[key]
        return data

    return chain(edit_json(EXP_CREATE, learn), edit_json(SNAPSHOT, show))


def _php_arrays(value: Any) -> Any:
    """``json_encode(json_decode($doc, true))``: every empty object comes back as ``[]``."""
    if isinstance(value, dict):
        return {k: _php_arrays(v) for k, v in value.items()} if value else []
    if isinstance(value, list):
        return [_php_arrays(v) for v in value]
    return value


def documents_php(entry: dict[str, Any]) -> None:
    if "configuration" in entry:
        entry["configuration"] = _php_arrays(entry["configuration"])
