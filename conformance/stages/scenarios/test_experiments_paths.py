"""Scenarios: the experiment paths' ids (spec 4.2): a project id that is no number is refused on
every experiment endpoint, and so is an experiment id that is no number."""

from __future__ import annotations

import pytest

from conformance.checks import IndependentChecks
from conformance.drivers.experiments import Experiments
from conformance.drivers.management import Configurations
from conformance.errors import Unsupported
from conformance.traffic.sdk_options import UNSET

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
NOT_NUMBERS = ("abc", "{real}.5", "{real}abc")  # {real}: an experiment id that exists


@requirement(*IDS)
@pytest.mark.parametrize("which", ["application", "experiment"])
def test_non_numeric_path_ids_are_refused(
    configurations: Configurations, experiments: Experiments, which: str
) -> None:
    """Each endpoint with the id in question spelled as letters, and as a real id with a
    fraction or letters after it (a reader that stops at the first non-digit takes the real
    one): a 4xx. The other id is a real one (the project's own; an experiment that exists)."""
    profile = configurations.profile
    if not profile.capability("experiments"):
        raise Unsupported("experiments")
    app = str(profile.project.application_id)
    base = experiments.base({"paths": True})
    real = str(experiments.create_ok("paths", base["id"], experiments.groups([[]]))["id"])
    headers = {
        "Authorization": f"Bearer {profile.credentials.pat}",
        "environment_id": str(profile.environment_id("development")),
    }
    with IndependentChecks() as independent:
        for method, suffix in ENDPOINTS:
            if which == "experiment" and "{experiment}" not in suffix:
                continue
            for spelled in NOT_NUMBERS:
                wrong = spelled.format(real=real if which == "experiment" else app)
                application, experiment = (wrong, real) if which == "application" else (app, wrong)
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
