"""What one run keeps in pytest's stash, shared by the plugin, fixtures, collector and stages.

Also the target look-up (``target_of``: the target the run was handed, ``conformance.run.handover``)
and the two things every process does with it: register the target's secrets for redaction
(``add_secrets``) and describe the target for the report (``target_info``).
"""

from __future__ import annotations

import pytest

from conformance.redaction.run_outputs import OutputRedaction
from conformance.report.model import Report
from conformance.session.deadline import RunDeadline
from conformance.target.resolution import Target
from conformance.traffic.transcript import Transcript

DEFAULT_REPORT_DIR = "reports"
REDACTION_NAME = "conformance-output-redaction"
COLLECTOR_NAME = "conformance-run-collector"

RUN_ID = pytest.StashKey[str]()
HANDED_OVER = pytest.StashKey[Target]()  # the run's target (``conformance.run.handover``)
TARGET_INFO = pytest.StashKey[dict[str, object]]()  # what the report says of the target
SECRETS = pytest.StashKey[tuple[str, ...]]()  # the target's secrets, masked in every report
REPORT = pytest.StashKey[Report]()
STARTED = pytest.StashKey[tuple[str, float]]()
TRANSCRIPT = pytest.StashKey[Transcript]()
DEADLINE = pytest.StashKey[RunDeadline]()


def target_of(config: pytest.Config) -> Target | None:
    """The target this process was handed (None: the run has none yet)."""
    return config.stash.get(HANDED_OVER, None)


def add_secrets(config: pytest.Config, secrets: dict[str, str]) -> None:
    """Secret value -> placeholder: redacted from every output of this process from now on."""
    redaction = config.pluginmanager.get_plugin(REDACTION_NAME)
    if isinstance(redaction, OutputRedaction):
        redaction.add(secrets)


def target_info(target: Target) -> dict[str, object]:
    """What the report says about the target (the caller adds the secrets for redaction)."""
    return {
        "url": target.base_url,
        "fingerprint": target.fingerprint,
        "profile": target.profile.redacted(),
        "baseline": {e.requirement: e.reason for e in target.profile.baseline},
    }
