"""Scenarios: the experiment paths' ids (spec 4.2): a project id that is no number is refused on
every experiment endpoint, and so is an experiment id that is no number."""

from __future__ import annotations

import pytest

from conformance.checks import IndependentChecks
from conformance.drivers.management import Configurations
from conformance.errors import Unsupported
from conformance.traffic.client import UNSET

requirement = pytest.mark.requirement
IDS = ("EXP-PATH-IDS-NUMERIC",)

# Every experiment endpoint of spec 4.2: (method, path suffix under .../v2/experiments).
ENDPOINTS = (
    ("GET", ""),
    ("POST", ""),
    ("GET", "/analytics-catalog"),
    ("GET", "/assignment-counts"),
    ("GET", "/context-properties"),
    ("GET", "/{experiment}"),
    ("GET", "/{experiment}/assignment-counts"),
    ("GET", "/{experiment}/assignments"),
    ("POST", "/{experiment}/assignments"),
    ("POST", "/{experiment}/assignments/reactivate"),
    ("POST", "/{experiment}/assignments/unenroll"),
    ("GET", "/{experiment}/members"),
    ("GET", "/{experiment}/rollout"),
    ("PATCH", "/{experiment}/rollout"),
    ("POST", "/{experiment}/terminate"),
)
NOT_NUMBERS = ("abc", "1.5")


@requirement(*IDS)
@pytest.mark.parametrize("which", ["application", "experiment"])
def test_non_numeric_path_ids_are_refused(configurations: Configurations, which: str) -> None:
    """Each endpoint with the id in question spelled as letters and as a fraction: a 4xx. The
    other id is a real one (the project's own; an experiment id of 1, which a refusal of the
    project id must not depend on)."""
    profile = configurations.profile
    if not profile.capability("experiments"):
        raise Unsupported("experiments")
    app = str(profile.project.application_id)
    headers = {
        "Authorization": f"Bearer {profile.credentials.pat}",
        "environment_id": str(profile.environment_id("development")),
    }
    with IndependentChecks() as independent:
        for method, suffix in ENDPOINTS:
            if which == "experiment" and "{experiment}" not in suffix:
                continue
            for wrong in NOT_NUMBERS:
                application, experiment = (wrong, "1") if which == "application" else (app, wrong)
                path = f"/application/{application}/v2/experiments" + suffix.format(
                    experiment=experiment
                )
                body: object = {} if method in ("POST", "PATCH") else UNSET
                reply = configurations.client.request(method, path, headers=headers, json_body=body)
                independent.check(
                    400 <= reply.status < 500,
                    IDS,
                    f"a non-numeric {which} id was not refused ({method} {path})",
                    "a 4xx",
                    reply.describe(),
                    reply,
                )
