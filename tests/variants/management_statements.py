"""Variants that keep, each in its own way, a statement of the management API or its credentials
no other variant kept (docs/trace.md): other refusal statuses where the spec names none, rollout
answers with fields of their own, an empty patch recorded in updatedAt, longer credentials, a later
API version served alongside. Every choice is one the specification's words allow; each ``doc``
says which words."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from faulty.asgi import Forward, Handler, Request, Response, error_response

from variants.rewrite import SDK, handler
from variants.variant import Variant

CONFIGURATION_ONE = re.compile(r"/application/[^/]+/v2/configuration/[^/]+")
EXPERIMENT_APP = re.compile(r"/application/([^/]+)/v2/experiments(/[^/]+)?(/.*)?")
ASSIGN = re.compile(r"/application/[^/]+/v2/experiments/[^/]+/assignments")
ROLLOUT = re.compile(r"/application/[^/]+/v2/experiments/[^/]+/rollout")
_DIGITS = re.compile(r"[0-9]+")
_COLLECTION_WORDS = ("analytics-catalog", "assignment-counts", "context-properties")


# ------------------------------------------------------------------ refusals


def _refusal(
    path: re.Pattern[str], method: str, before: int, code: str, after: int
) -> Callable[..., Response]:
    def answer(request: Request, response: Response) -> Response:
        data = response.json()
        if (
            request.method == method
            and path.fullmatch(request.path)
            and response.status == before
            and isinstance(data, dict)
            and data.get("errorCode") == code
        ):
            return response.replace(status=after)
        return response

    return answer


def _path_ids_400() -> Handler:
    """A project or experiment id that is no number answers 400 (after the credentials)."""

    async def handle(request: Request, forward: Forward) -> Response:
        match = EXPERIMENT_APP.fullmatch(request.path)
        if match and request.header("authorization") is not None:
            project, experiment = match.group(1), (match.group(2) or "/")[1:]
            bad_experiment = (
                experiment != ""
                and experiment not in _COLLECTION_WORDS
                and not _DIGITS.fullmatch(experiment)
            )
            if not _DIGITS.fullmatch(project) or bad_experiment:
                response = await forward(request)
                if response.status in (401, 403):
                    return response
                return error_response(400, "INVALID_PATH_ID")
        return await forward(request)

    return handle


def _rollout_extra(request: Request, response: Response) -> Response:
    data = response.json()
    if response.status >= 400 or not ROLLOUT.fullmatch(request.path) or not isinstance(data, dict):
        return response
    groups = data.get("groups")
    total = sum(
        g["weight"]
        for g in groups or []
        if isinstance(g, dict) and isinstance(g.get("weight"), int | float)
    )
    return response.with_json({**data, "weightTotal": total, "groupCount": len(groups or [])})


# ------------------------------------------------------------------ management


def _touching_empty_patch() -> Handler:
    """An empty patch changes no content but records the write in updatedAt."""
    touched: dict[str, str] = {}

    def later(record: dict[str, Any], key: str) -> dict[str, Any]:
        stamp = record.get("updatedAt")
        if key in touched and isinstance(stamp, str) and touched[key] > stamp:
            return {**record, "updatedAt": touched[key]}
        return record

    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        data = response.json()
        if (
            request.method != "PATCH"
            or not CONFIGURATION_ONE.fullmatch(request.path)
            or response.status != 200
            or not isinstance(data, dict)
        ):
            return response
        key = request.path
        body = request.json()
        if isinstance(body, dict) and all(v is None for v in body.values()):
            now = time.time()
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
            touched[key] = f"{stamp}.{int(now * 1000) % 1000:03d}Z"
        return response.with_json(later(data, key))

    return handle


# ------------------------------------------------------------------ credentials and versions

# The variant issues its keys and tokens longer than the reference's: the reference's own
# secret, then this tail (prefixes kept). A credential without the tail was never issued here.
TAIL = "Zq7Kx2Lm9Rw4Tb8N"


def _longer(value: Any) -> Any:
    return value + TAIL if isinstance(value, str) else value


def _issued_pat(profile: dict[str, Any]) -> dict[str, Any]:
    credentials = dict(profile["credentials"])
    credentials["pat"] = _longer(credentials["pat"])
    return {**profile, "credentials": credentials}


def _issued_sdk_keys(profile: dict[str, Any]) -> dict[str, Any]:
    credentials = dict(profile["credentials"])
    credentials["sdk_keys"] = [{**k, "key": _longer(k["key"])} for k in credentials["sdk_keys"]]
    if isinstance(credentials.get("legacy_sdk_key"), dict):
        legacy = credentials["legacy_sdk_key"]
        credentials["legacy_sdk_key"] = {**legacy, "key": _longer(legacy["key"])}
    credentials["foreign_sdk_key"] = _longer(credentials.get("foreign_sdk_key"))
    return {**profile, "credentials": credentials}


def _reference_secret(value: str) -> str:
    """A credential this variant issued, as the reference knows it; any other never matches."""
    return value[: -len(TAIL)] if value.endswith(TAIL) else value + "-not-issued"


def _pat_in(request: Request) -> Request:
    value = request.header("authorization")
    if value is None or SDK.fullmatch(request.path):
        return request
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return request
    return request.with_header("authorization", f"{scheme} {_reference_secret(token.strip())}")


def _sdk_key_in(request: Request) -> Request:
    value = request.header("authorization")
    if value is None or not SDK.fullmatch(request.path) or not value.strip():
        return request
    return request.with_header("authorization", _reference_secret(value.strip()))


def _version_v3_alongside(request: Request) -> Request:
    """The same endpoints served under v3 too (v2 stays as documented)."""
    path = re.sub(r"^/sdk/v3/", "/sdk/v2/", request.path)
    path = re.sub(r"^(/application/[^/]+)/v3/", r"\1/v2/", path)
    return request if path == request.path else request.replace(path=path)


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "environment-elsewhere-403",
        "refuses an environment_id of another project with 403, not 404: spec 4.1 says the "
        "header is required, not how a foreign one is refused",
        frozenset({"CFG-ENV-ID-UNKNOWN", "CFG-ENV-ID-REQUIRED"}),
        handler(
            answer=lambda request, response: (
                response.replace(status=403)
                if response.status == 404
                and (response.json() or {}).get("errorCode") == "ENVIRONMENT_NOT_FOUND"
                else response
            )
        ),
        watch=frozenset({"CFG-ENV-ID-UNKNOWN"}),
    ),
    Variant(
        "experiment-path-ids-400",
        "answers a project or experiment id that is no number 400 on the experiment paths, "
        "after the credentials: spec 4.2 says the ids are numbers, not how others are refused",
        frozenset({"EXP-PATH-IDS-NUMERIC"}),
        _path_ids_400,
        watch=frozenset({"EXP-PATH-IDS-NUMERIC", "EXP-UNKNOWN-ID"}),
    ),
    Variant(
        "foreign-group-409",
        "refuses a manual assignment to a group of no such experiment with 409: spec 4.2 shows "
        "no status of the assignment endpoint",
        frozenset({"EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP", "EXP-MANUAL-ASSIGNMENT"}),
        handler(answer=_refusal(ASSIGN, "POST", 404, "GROUP_NOT_FOUND", 409)),
        watch=frozenset({"EXP-MANUAL-ASSIGNMENT-UNKNOWN-GROUP"}),
    ),
    Variant(
        "rollout-extra-fields",
        "answers a rollout with fields of its own (weightTotal, groupCount): spec 4.2 shows no "
        "payload of the rollout endpoints",
        frozenset({"EXP-ROLLOUT-GET", "EXP-ROLLOUT-CHANGE"}),
        handler(answer=_rollout_extra),
        watch=frozenset({"EXP-ROLLOUT-GET", "EXP-ROLLOUT-CHANGE"}),
    ),
    Variant(
        "rollout-invalid-409",
        "refuses a rollout change its weights cannot take with 409: spec 4.2 shows no status",
        frozenset({"EXP-ROLLOUT-CHANGE-INVALID", "EXP-ROLLOUT-CHANGE"}),
        handler(answer=_refusal(ROLLOUT, "PATCH", 400, "INVALID_REQUEST", 409)),
        watch=frozenset({"EXP-ROLLOUT-CHANGE-INVALID"}),
    ),
    Variant(
        "empty-patch-touches",
        "records an empty patch in updatedAt (content and contentHash unchanged): spec 2.3 says "
        "an empty object is an accepted body, not that it writes nothing",
        frozenset({"CFG-PATCH-EMPTY-BODY"}),
        _touching_empty_patch,
        watch=frozenset({"CFG-PATCH-EMPTY-BODY", "CFG-RECORD-UPDATED-AT-ADVANCES"}),
    ),
    Variant(
        "pat-longer",
        f"issues personal access tokens {len(TAIL)} characters longer than the reference's "
        "(svc_pat_ kept) and knows no other: spec 5 gives the prefix, not the length",
        frozenset({"AUTH-PAT-ACCEPTED", "AUTH-EXP-PAT-ACCEPTED"}),
        handler(rewrite=_pat_in),
        issues=_issued_pat,
        watch=frozenset({"AUTH-PAT-ACCEPTED", "AUTH-EXP-PAT-ACCEPTED", "AUTH-SDK-PAT-REFUSED"}),
    ),
    Variant(
        "sdk-keys-longer",
        f"issues SDK keys {len(TAIL)} characters longer than the reference's (svc_pk_ and the "
        "legacy sdk_ kept) and knows no other: spec 5 gives the prefixes, not the length",
        frozenset(
            {
                "AUTH-SDK-KEY-ACCEPTED",
                "AUTH-SDK-PAT-REFUSED",
                "AUTH-SDK-LEGACY-PREFIX",
                "VER-LEGACY-KEY-SAME-SNAPSHOT",
            }
        ),
        handler(rewrite=_sdk_key_in),
        issues=_issued_sdk_keys,
        watch=frozenset({"AUTH-SDK-KEY-ACCEPTED", "VER-LEGACY-KEY-SAME-SNAPSHOT"}),
    ),
    Variant(
        "version-v3-alongside",
        "serves every endpoint under a v3 segment as well, v2 kept as documented: spec 9 says "
        "the paths carry v2 and shows no policy on other versions",
        frozenset({"VER-PATH-V2"}),
        handler(rewrite=_version_v3_alongside),
        watch=frozenset({"VER-PATH-V2", "CFG-PATH-IDS-NUMERIC", "EXP-PATH-IDS-NUMERIC"}),
    ),
)
