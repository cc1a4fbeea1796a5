"""Variants with their own figures and subsets where the spec gives none: a smaller rate-limit
bucket, a lower shedding threshold, fewer groups, one unit type, a smaller page."""

from __future__ import annotations

import re

from faulty.asgi import Forward, Handler, Request, Response, error_response

from variants.rewrite import EXPERIMENT_LIST, EXPERIMENTS, handler
from variants.variant import Variant, pair

MAX_GROUPS = 4
PAGE_SIZE_MAX = 20
_DIGITS = re.compile(r"[0-9]+")


def _refusing(refused: object) -> Handler:
    async def handle(request: Request, forward: Forward) -> Response:
        if refused(request):  # type: ignore[operator]
            return error_response(400, "INVALID_REQUEST")
        return await forward(request)

    return handle


def _too_many_groups(request: Request) -> bool:
    data = request.json()
    return (
        request.method == "POST"
        and EXPERIMENT_LIST.fullmatch(request.path) is not None
        and isinstance(data, dict)
        and isinstance(data.get("groups"), list)
        and len(data["groups"]) > MAX_GROUPS
    )


def _server_unit(request: Request) -> bool:
    data = request.json()
    return (
        request.method == "POST"
        and EXPERIMENT_LIST.fullmatch(request.path) is not None
        and isinstance(data, dict)
        and data.get("unitType") == "server"
    )


def _page_too_large(request: Request) -> bool:
    limit = request.param("limit")
    return (
        request.method == "GET"
        and EXPERIMENTS.fullmatch(request.path) is not None
        and limit is not None
        and _DIGITS.fullmatch(limit) is not None
        and int(limit) > PAGE_SIZE_MAX
    )


VARIANTS: tuple[Variant, ...] = (
    *pair(
        "rate-limit-20-10",
        "holds 20 tokens per bucket refilled at 10 a second: spec 8 gives the limit no figure",
        handler(),
        {"rate_limit": {"burst": 20, "refill_per_second": 10.0}},
        settings={"rate_burst": 20, "rate_refill": 10.0},
    ),
    Variant(
        "rate-limit-scope-instance",
        "keeps one rate-limit bucket per instance id whatever the SDK key, and without an id one "
        "per address for every key: spec 8 scopes the limit by the instance id and has 'all "
        "servers behind one egress IP share a single bucket'",
        frozenset({"LIMIT-RATE-SHARED-WITHOUT-ID", "LIMIT-RATE-PER-INSTANCE"}),
        handler(),
        declare={"rate_limit": {"scope": "instance"}},
        settings={"rate_scope": "instance"},
        watch=frozenset({"LIMIT-RATE-SHARED-WITHOUT-ID"}),
    ),
    Variant(
        "shedding-threshold-60",
        "adds the polling hint above 60 SDK requests a second: spec 2.4 says 'under load'",
        frozenset({"POLL-HINT-UNDER-LOAD"}),
        handler(),
        declare={"load": {"shedding_threshold": 60.0}},
        settings={"shed_threshold": 60},
        watch=frozenset({"POLL-HINT-UNDER-LOAD"}),
        stages=("scenarios", "load"),  # the load stage judges the hint against the threshold
    ),
    *pair(
        "max-groups-4",
        f"accepts at most {MAX_GROUPS} groups: spec 2.5 gives no bound",
        lambda: _refusing(_too_many_groups),
        {"experiments": {"max_groups": MAX_GROUPS}},
    ),
    *pair(
        "unit-types-user-only",
        "runs experiments on user units only: spec 2.5 names the unit types without requiring both",
        lambda: _refusing(_server_unit),
        {"experiments": {"unit_types": ["user"]}},
    ),
    Variant(
        "page-size-max-20",
        f"pages experiment lists at most {PAGE_SIZE_MAX} items and refuses a larger limit: spec "
        "4.2 gives no page size",
        frozenset({"EXP-LIST"}),
        lambda: _refusing(_page_too_large),
        declare={"experiments": {"page_size_max": PAGE_SIZE_MAX}},
        watch=frozenset({"EXP-LIST", "EXP-MEMBERS", "EXP-ASSIGNMENTS-LIST"}),
    ),
)
