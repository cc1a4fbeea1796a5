"""Variants that spell configuration paths their own way: dotted paths (spec 2.2 shows a path
without fixing its syntax), and the key-order sidecar as a list of entries (spec 2.3 shows
none), reusing the first dialect's translations (``dialect.paths``, ``dialect.management``)."""

from __future__ import annotations

from typing import Any

from dialect.management import ShapeError, key_order
from dialect.paths import PathError, to_dotted, to_pointer
from faulty.asgi import Forward, Handler, Request, Response, error_response

from variants.rewrite import CONFIGURATIONS
from variants.variant import Variant, direct, dotted_keys


def _inbound(data: Any, entries: bool) -> Any:
    """A create or patch body with dotted private paths and sidecar keys (or sidecar entries)
    in the reference's form; a patch's operations are RFC 6902's, JSON Pointers as they are."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if isinstance(out.get("privateKeys"), list):
        out["privateKeys"] = [
            to_pointer(p) if isinstance(p, str) else p for p in out["privateKeys"]
        ]
    if "keyOrder" in out:
        order = out["keyOrder"]
        if entries:
            out["keyOrder"] = key_order(order)
        elif isinstance(order, dict):
            out["keyOrder"] = {to_pointer(k): v for k, v in order.items()}
    return out


def _outbound(response: Response) -> Response:
    data = response.json()
    if response.status >= 400 or not isinstance(data, dict):
        return response
    keys = data.get("privateKeys")
    if isinstance(keys, list):
        try:
            data["privateKeys"] = [to_dotted(k) if isinstance(k, str) else k for k in keys]
        except PathError:
            return response
        return response.with_json(data)
    return response


def _paths(entries: bool) -> Handler:
    async def handle(request: Request, forward: Forward) -> Response:
        if not CONFIGURATIONS.fullmatch(request.path) or request.method not in ("POST", "PATCH"):
            return (
                _outbound(await forward(request))
                if CONFIGURATIONS.fullmatch(request.path)
                else await forward(request)
            )
        data = request.json()
        if data is not None:
            try:
                request = request.with_json(_inbound(data, entries))
            except (PathError, ShapeError):
                return error_response(400, "INVALID_PATH")
        return _outbound(await forward(request))

    return handle


def _declared(name: str, doc: str, entries: bool, values: dict[str, Any]) -> Variant:
    return Variant(name, doc, direct(dotted_keys(values)), lambda: _paths(entries), declare=values)


DOTTED = {"bodies": {"path_syntax": "dotted"}}
ENTRIES = {"bodies": {"path_syntax": "dotted", "patch": {"key_order_shape": "entries"}}}

VARIANTS: tuple[Variant, ...] = (
    _declared(
        "dotted-paths",
        "spells private paths and sidecar keys as dotted paths ('a.b'; a patch's operations "
        "stay RFC 6902's JSON Pointers): spec 2.2 "
        "shows a path, not its syntax (declared: the kit cannot send a syntax it is not told)",
        False,
        DOTTED,
    ),
    _declared(
        "dotted-paths-sidecar-entries",
        "dotted paths, and the key-order sidecar as a list of {path, keys} entries: spec 2.3 "
        "shows no sidecar shape",
        True,
        ENTRIES,
    ),
)
