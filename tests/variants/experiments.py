"""Correct-but-different experiment endpoints: plain handlers over the reference app, each filling
one gap the specification leaves open (spec 2.5 gaps, 4.2: payloads, paging and environment not
shown; 4.1: what names a patch's base not shown) another way, with the profile keys that declare
it (``PROFILES``). Each must come out interface-conformant; the variant catalogue registers them.

A handler is ``async def handler(request, forward) -> Response`` (``faulty.asgi``).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

from faulty.asgi import Forward, Request, Response

EXPERIMENTS = re.compile(r"^/application/(\d+)/v2/experiments(?P<rest>/.*)?$")
CONFIGURATION = re.compile(r"^/application/\d+/v2/configuration/(\d+)$")
CONFIGURATIONS = re.compile(r"^/application/\d+/v2/configuration$")
RECORD = re.compile(r"^/\d+(/terminate)?$")  # answers carrying an experiment record


def _rest(request: Request) -> str | None:
    """The path after ``.../v2/experiments`` ("" for the collection), or None elsewhere."""
    match = EXPERIMENTS.match(request.path)
    return None if match is None else match.group("rest") or ""


def _json(response: Response, data: Any) -> Response:
    return response.replace(body=json.dumps(data).encode())


async def _refused(request: Request, forward: Forward) -> Response:
    """The variant refuses the body: sent on with a body the reference refuses too (400), so
    the credentials are still judged first, as the reference judges them."""
    return await forward(request.with_json([]))


# ------------------------------------------------------------------ create body and record names

CREATE_NAMES = {  # summary name -> this variant's
    "name": "title",
    "unitType": "kind",
    "assignmentMode": "strategy",
    "baseConfigurationId": "baseId",
    "requiredProperties": "requires",
    "groups": "variants",
}
GROUP_NAMES = {"label": "tag", "weight": "share"}


def _to(data: Any, top: dict[str, str], group: dict[str, str]) -> Any:
    if not isinstance(data, dict):
        return data
    out = {top.get(k, k): v for k, v in data.items()}
    groups_key = top.get("groups", "groups")
    if isinstance(out.get(groups_key), list):
        out[groups_key] = [
            {group.get(k, k): v for k, v in g.items()} if isinstance(g, dict) else g
            for g in out[groups_key]
        ]
    return out


def _reverse(names: dict[str, str]) -> dict[str, str]:
    return {v: k for k, v in names.items()}


async def create_names(request: Request, forward: Forward) -> Response:
    """The create body, the record (create answer, GET, terminate, list items) and catalog items
    under the variant's own names; the reference's names mean nothing to it on the way in."""
    rest = _rest(request)
    if rest is None:
        return await forward(request)
    if request.method == "POST" and rest == "":
        body = request.json()
        if isinstance(body, dict):
            known = set(CREATE_NAMES.values())
            kept = {k: v for k, v in body.items() if k not in CREATE_NAMES or k in known}
            body = _to(kept, _reverse(CREATE_NAMES), _reverse(GROUP_NAMES))
            request = request.with_json(body)
    response = await forward(request)
    data = response.json()
    if response.status >= 300 or data is None:
        return response
    if rest in ("", "/analytics-catalog") and request.method == "GET":
        items = data.get("items") if isinstance(data, dict) else None
        if isinstance(items, list):
            data["items"] = [_to(i, CREATE_NAMES, GROUP_NAMES) for i in items]
        return _json(response, data)
    if (request.method, rest) == ("POST", "") or RECORD.match(rest):
        return _json(response, _to(data, CREATE_NAMES, GROUP_NAMES))
    return response


# ------------------------------------------------------------------ rollout weights as a list


async def weights_as_list(request: Request, forward: Forward) -> Response:
    """A rollout change takes its weights as ``[{groupId, weight}]``; the map form is refused."""
    rest = _rest(request)
    if rest is None or request.method != "PATCH" or not rest.endswith("/rollout"):
        return await forward(request)
    body = request.json()
    weights = body.get("weights") if isinstance(body, dict) else None
    if isinstance(weights, dict):
        return await _refused(request, forward)
    if isinstance(weights, list):
        as_map = {}
        for entry in weights:
            if not isinstance(entry, dict) or "groupId" not in entry:
                return await _refused(request, forward)
            as_map[str(entry["groupId"])] = entry.get("weight")
        request = request.with_json({**body, "weights": as_map})
    return await forward(request)


# ------------------------------------------------------------------ weights with no fixed total

TOTAL = 10_000  # the reference's


def _scaled(weights: list[Any]) -> list[Any] | None:
    """Positive numbers scaled to the reference's total (None: not all positive integers)."""
    if not weights or not all(isinstance(w, int) and not isinstance(w, bool) for w in weights):
        return None
    if any(w < 0 for w in weights) or sum(weights) == 0:
        return None
    total = sum(weights)
    scaled = [TOTAL * w // total for w in weights]
    scaled[0] += TOTAL - sum(scaled)
    return scaled


async def no_fixed_total(request: Request, forward: Forward) -> Response:
    """Weights are relative: any positive integers (negative ones refused); stored and shown as
    shares of 10000 (a correct reading of 'weight: number' with no total)."""
    rest = _rest(request)
    body = request.json()
    if rest == "" and request.method == "POST" and isinstance(body, dict):
        groups = body.get("groups")
        if isinstance(groups, list) and all(isinstance(g, dict) and "weight" in g for g in groups):
            scaled = _scaled([g["weight"] for g in groups])
            if scaled is None:
                return await _refused(request, forward)
            body["groups"] = [{**g, "weight": w} for g, w in zip(groups, scaled, strict=True)]
            request = request.with_json(body)
    elif rest and rest.endswith("/rollout") and request.method == "PATCH":
        weights = body.get("weights") if isinstance(body, dict) else None
        if isinstance(weights, dict) and weights:
            scaled = _scaled(list(weights.values()))
            if scaled is None:
                return await _refused(request, forward)
            request = request.with_json(
                {**body, "weights": dict(zip(weights, scaled, strict=True))}
            )
    return await forward(request)


# ------------------------------------------------------------------ a weight in every mode


async def manual_needs_weight(request: Request, forward: Forward) -> Response:
    """Every group needs a weight, whatever the mode; outside the weighted mode it is kept by
    the variant alone (the reference takes none there) and changes nothing."""
    body = request.json()
    if _rest(request) == "" and request.method == "POST" and isinstance(body, dict):
        groups = body.get("groups")
        if isinstance(groups, list) and body.get("assignmentMode") != "weightedHash":
            if not all(isinstance(g, dict) and isinstance(g.get("weight"), int) for g in groups):
                return await _refused(request, forward)
            body["groups"] = [{k: v for k, v in g.items() if k != "weight"} for g in groups]
            request = request.with_json(body)
    return await forward(request)


# ------------------------------------------------------------------ count names per endpoint

GROUP_COUNT_NAMES = {"active": "enrolled", "unenrolled": "left", "total": "all"}


async def group_count_names(request: Request, forward: Forward) -> Response:
    """The per-experiment counts use names of their own (the project-wide ones are kept)."""
    rest = _rest(request)
    response = await forward(request)
    if rest is None or request.method != "GET" or not re.fullmatch(r"/\d+/assignment-counts", rest):
        return response
    data = response.json()
    if response.status != 200 or not isinstance(data, dict):
        return response
    out = {GROUP_COUNT_NAMES.get(k, k): v for k, v in data.items()}
    if isinstance(out.get("groups"), list):
        out["groups"] = [
            {GROUP_COUNT_NAMES.get(k, k): v for k, v in g.items()} if isinstance(g, dict) else g
            for g in out["groups"]
        ]
    return _json(response, out)


# ------------------------------------------------------------------ no environment input

PROJECT_ENVIRONMENT = {"1": "1", "2": "3"}  # the reference's provisioning: development's id


async def no_environment_header(request: Request, forward: Forward) -> Response:
    """The experiment endpoints take no environment input (spec 4.2 names none): a request that
    sends ``environment_id`` is refused, and each project's experiments live in one
    environment (its development one)."""
    match = EXPERIMENTS.match(request.path)
    if match is None:
        return await forward(request)
    if request.header("environment_id") is not None:  # refused, after the credentials
        return await forward(request.with_header("environment_id", None))
    environment = PROJECT_ENVIRONMENT.get(match.group(1), "1")
    return await forward(request.with_header("environment_id", environment))


# ------------------------------------------------------------------ Link paging


async def link_paging(request: Request, forward: Forward) -> Response:
    """Lists page by RFC 8288 ``Link: <...>; rel="next"`` headers, no cursor in the body."""
    rest = _rest(request)
    response = await forward(request)
    data = response.json()
    if rest is None or request.method != "GET" or not isinstance(data, dict):
        return response
    cursor = data.pop("nextCursor", None)
    response = _json(response, data)
    if not cursor:
        return response
    query = [(k, v) for k, v in request.query if k != "cursor"] + [("cursor", str(cursor))]
    target = f"{request.path}?{urlencode(query)}"
    return response.with_header("link", f'<{target}>; rel="next"; title="more"')


# ------------------------------------------------------------------ lists that page everywhere

SMALL_PAGE = 1


async def every_list_pages(request: Request, forward: Forward) -> Response:
    """The analytics catalog, the project-wide counts and the context properties page too
    (cursor, one item a page, the oldest first, whatever limit is asked), as the experiments
    list does."""
    rest = _rest(request)
    paged = ("/analytics-catalog", "/assignment-counts", "/context-properties")
    if rest not in paged or request.method != "GET":
        return await forward(request)
    start = request.param("cursor")
    response = await forward(request.without_param("cursor").without_param("limit"))
    data = response.json()
    items = data.get("items") if isinstance(data, dict) else None
    if response.status != 200 or not isinstance(items, list):
        return response
    ordered = list(items)
    offset = int(start) if start and start.isdigit() else 0
    page = ordered[offset : offset + SMALL_PAGE]
    more = offset + SMALL_PAGE < len(ordered)
    body = {"items": page, "nextCursor": str(offset + SMALL_PAGE) if more else None}
    return _json(response, body)


# ------------------------------------------------------------------ a terminate that closes


async def terminate_closes_rollout(request: Request, forward: Forward) -> Response:
    """A terminated experiment's rollout reads 0 percent (the terminate closes it): what the
    terminate itself changes is no change it was asked to refuse afterwards."""
    rest = _rest(request)
    response = await forward(request)
    if rest is None or request.method != "GET" or not re.fullmatch(r"/\d+/rollout", rest):
        return response
    data = response.json()
    if response.status != 200 or not isinstance(data, dict):
        return response
    experiment = await forward(
        request.replace(path=request.path.removesuffix("/rollout"), query=())
    )
    record = experiment.json()
    if isinstance(record, dict) and record.get("status") == "terminated":
        return _json(response, {**data, "percentage": 0})
    return response


# ------------------------------------------------------------------ a version as the base token


class VersionToken:
    """Configuration records carry a ``version`` (1 at create, +1 per patch); a patch names its
    base by that version in ``baseHash``, and a ``contentHash`` there is no version (stale).
    Each version is turned back into the content hash it was issued with, so the reference's
    own comparison decides (concurrent patches from one version: one wins)."""

    def __init__(self) -> None:
        self.versions: dict[str, int] = {}
        self.hashes: dict[tuple[str, int], object] = {}

    def _issued(self, config_id: str, version: int, data: dict[str, Any]) -> dict[str, Any]:
        self.hashes[(config_id, version)] = data.get("contentHash")
        return {**data, "version": version}

    async def __call__(self, request: Request, forward: Forward) -> Response:
        single = CONFIGURATION.match(request.path)
        if request.method == "PATCH" and single:
            return await self._patch(request, forward, single.group(1))
        response = await forward(request)
        data = response.json()
        if response.status >= 300 or not isinstance(data, dict):
            return response
        config_id = str(data.get("id"))
        if request.method == "POST" and CONFIGURATIONS.match(request.path) and "id" in data:
            self.versions[config_id] = 1
        if (single or CONFIGURATIONS.match(request.path)) and config_id in self.versions:
            return _json(response, self._issued(config_id, self.versions[config_id], data))
        return response

    async def _patch(self, request: Request, forward: Forward, config_id: str) -> Response:
        body = request.json()
        if isinstance(body, dict) and "baseHash" in body:
            named = body["baseHash"]
            known = isinstance(named, int) and not isinstance(named, bool)
            base = self.hashes.get((config_id, named)) if known else None
            request = request.with_json({**body, "baseHash": base or "0" * 64})
        response = await forward(request)
        data = response.json()
        if 200 <= response.status < 300 and isinstance(data, dict):
            version = self.versions.get(config_id, 1) + 1
            self.versions[config_id] = version
            return _json(response, self._issued(config_id, version, data))
        return response


# ------------------------------------------------------------------ the profiles that declare them

PROFILES: dict[str, dict[str, Any]] = {
    "create_names": {
        "experiment_payload": {
            "create": {
                "name": "title",
                "unit_type": "kind",
                "assignment_mode": "strategy",
                "base_configuration_id": "baseId",
                "required_properties": "requires",
                "groups": "variants",
                "group_label": "tag",
                "group_weight": "share",
            }
        }
    },
    "weights_as_list": {"experiment_payload": {"weights_shape": "list"}},
    "no_fixed_total": {"experiments": {"weight_total": None}},
    "manual_needs_weight": {"experiment_payload": {"manual_weights": True}},
    "group_count_names": {
        "experiment_payload": {
            "group_count_active": "enrolled",
            "group_count_unenrolled": "left",
            "group_count_total": "all",
        }
    },
    "no_environment_header": {"experiment_payload": {"environment_header": False}},
    "link_paging": {"experiment_payload": {"pagination": "link"}},
    "every_list_pages": {},  # cursor paging, the convention: nothing to declare
    "terminate_closes_rollout": {},  # nothing to declare: the interface allows it
    "version_token": {"bodies": {"patch": {"base_token_source": "version"}}},
}
