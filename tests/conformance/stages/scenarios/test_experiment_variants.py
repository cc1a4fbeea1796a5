"""End to end: correct-but-different experiment endpoints (``tests/variants/experiments.py``) pass
the requirements they touch at the interface level with the keys that declare them, and a broken
twin of a few of them is still failed.

Each case serves the reference app behind one variant handler (uvicorn on 127.0.0.1, a real
SQLite file), writes the declaring keys over the profile the reference wrote, and runs
``conformance run --requirements ...`` in a child process.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from refserver.runner import start_server
from tests.support.profiles import with_overrides
from tests.support.report_outcomes import requirement_outcomes
from tests.support.suite_run import certify

TESTS = str(Path(__file__).resolve().parents[3])
if TESTS not in sys.path:  # tests/faulty holds the ASGI plumbing the variants are written in
    sys.path.append(TESTS)

from faulty.asgi import FaultyApp, Forward, Handler, Request, Response  # noqa: E402

from tests.variants import experiments as variants  # noqa: E402

pytestmark = pytest.mark.long

CREATE_IDS = ("EXP-CREATE", "EXP-GET", "EXP-LIST", "EXP-ANALYTICS-CATALOG", "EXP-CREATE-UNIT-TYPES")
ROLLOUT_IDS = ("EXP-ROLLOUT-CHANGE", "EXP-ROLLOUT-CHANGE-INVALID", "EXP-ROLLOUT-GET")
COUNT_IDS = ("EXP-GROUP-COUNTS", "EXP-ASSIGNMENT-COUNTS", "EXP-COUNTS-AGREE-TOTALS")
BASE_IDS = (
    "CFG-PATCH-409-STALE-BASE",
    "CFG-PATCH-CURRENT-BASE-ACCEPTED",
    "CFG-PATCH-CONCURRENT-ONE-WINS",
)

# name -> (handler factory, requirements judged)
CASES: dict[str, tuple[Callable[[], Handler], tuple[str, ...]]] = {
    "create_names": (lambda: variants.create_names, CREATE_IDS),
    "weights_as_list": (lambda: variants.weights_as_list, ROLLOUT_IDS),
    "no_fixed_total": (lambda: variants.no_fixed_total, (*ROLLOUT_IDS, "EXP-CREATE", "EXP-GET")),
    "manual_needs_weight": (
        lambda: variants.manual_needs_weight,
        ("EXP-CREATE-ASSIGNMENT-MODES", "EXP-ROUND-ROBIN-BALANCED"),
    ),
    "group_count_names": (lambda: variants.group_count_names, COUNT_IDS),
    "no_environment_header": (
        lambda: variants.no_environment_header,
        ("EXP-CREATE", "EXP-GET", "EXP-LIST", "EXP-TERMINATE", "EXP-MEMBERS", *COUNT_IDS),
    ),
    "link_paging": (lambda: variants.link_paging, ("EXP-LIST", "EXP-MEMBERS")),
    "every_list_pages": (
        lambda: variants.every_list_pages,
        # the catalog's test runs last (one process, file order): others' experiments come first
        (
            "EXP-ASSIGNMENT-COUNTS",
            "EXP-CREATE",
            "EXP-ANALYTICS-CATALOG",
            "EXP-CONTEXT-PROPERTIES-RECORDED",
        ),
    ),
    "terminate_closes_rollout": (
        lambda: variants.terminate_closes_rollout,
        ("EXP-TERMINATE-FINAL", "EXP-TERMINATE"),
    ),
    "version_token": (variants.VersionToken, BASE_IDS),
}


def _run(
    tmp_path: Path, handler: Handler, ids: tuple[str, ...], overrides: dict[str, Any]
) -> tuple[dict[str, str], dict[str, Any], str]:
    profile = tmp_path / "profile.yaml"
    server = start_server(
        tmp_path / "refserver.db", profile_path=profile, wrap=lambda app: FaultyApp(app, handler)
    )
    try:
        with_overrides(profile, overrides)
        report, output = certify(
            server.base_url, profile, tmp_path / "report", ("--requirements", ",".join(ids))
        )
    finally:
        server.stop()
    return requirement_outcomes(report), report, output


def _differences(report: dict[str, Any]) -> list[Any]:
    return [d for r in report.get("requirements", []) for d in r.get("differences", [])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_declared_variant_passes(name: str, tmp_path: Path) -> None:
    factory, ids = CASES[name]
    outcomes, report, output = _run(tmp_path, factory(), ids, variants.PROFILES[name])
    assert outcomes == dict.fromkeys(ids, "pass"), output[-3000:]
    assert report["verdict"] == "conformant", output[-3000:]


@pytest.mark.parametrize("name", ["create_names", "group_count_names"])
def test_an_undeclared_name_is_a_difference_never_a_failure(name: str, tmp_path: Path) -> None:
    """Left at their defaults (and no ``conventions: production``) the names are conventions:
    a miss is no interface failure, and no green either (not judged at the interface level,
    the difference listed under its key)."""
    factory, ids = CASES[name]
    outcomes, report, output = _run(tmp_path, factory(), ids, {"conventions": "none"})
    assert "fail" not in outcomes.values(), output[-3000:]
    assert report["verdict"] != "conformant", output[-3000:]
    keys = {d.get("key", "") for d in _differences(report)}
    assert any(k.startswith("experiment_payload.") for k in keys), f"{keys}\n{output[-3000:]}"


# ------------------------------------------------------------------ broken twins


async def _link_loops(request: Request, forward: Forward) -> Response:
    """Link paging whose next page is always the first one."""
    response = await variants.link_paging(request, forward)
    link = response.headers.get("link")
    if link is None:
        return response
    first = [(k, v) for k, v in request.query if k != "cursor"]
    looped = request.replace(query=tuple(first))
    again = await variants.link_paging(looped, forward)
    return again.with_header("link", f'<{request.path}?{_query(first)}>; rel="next"')


def _query(pairs: list[tuple[str, str]]) -> str:
    return urlencode(pairs)


class _StaleAccepted(variants.VersionToken):
    """Version tokens, but a stale version is taken as the current one."""

    async def _patch(self, request: Request, forward: Forward, config_id: str) -> Response:
        body = request.json()
        if isinstance(body, dict) and "baseHash" in body:  # any version: the current one
            request = request.with_json({**body, "baseHash": self.versions.get(config_id, 1)})
        return await super()._patch(request, forward, config_id)


async def _catalog_short(request: Request, forward: Forward) -> Response:
    """The catalog pages, but its pages after the first are empty with no next cursor."""
    if request.param("cursor") and request.path.endswith("/analytics-catalog"):
        response = await forward(request.without_param("cursor"))
        return response.with_json({"items": [], "nextCursor": None})
    return await variants.every_list_pages(request, forward)


BROKEN: dict[str, tuple[Callable[[], Handler], str, dict[str, Any], str]] = {
    "link-loops": (lambda: _link_loops, "link_paging", {}, "EXP-LIST"),
    "stale-version-accepted": (_StaleAccepted, "version_token", {}, "CFG-PATCH-409-STALE-BASE"),
    "catalog-short": (lambda: _catalog_short, "every_list_pages", {}, "EXP-ANALYTICS-CATALOG"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_twin_is_failed(name: str, tmp_path: Path) -> None:
    factory, profile_of, extra, broken = BROKEN[name]
    _, ids = CASES[profile_of]
    overrides = {**variants.PROFILES[profile_of], **extra}
    outcomes, _, output = _run(tmp_path, factory(), ids, overrides)
    assert outcomes.get(broken) == "fail", f"{outcomes}\n{output[-3000:]}"
