"""Running the client stage on one variant of the catalogue, in-process (no pytest inside
pytest): the scripted server, the variant as a process, the judges; what failed."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance.report.model import Outcome as Judged
from conformance.stages.client.judging import judge
from conformance.stages.client.runs import run_scenarios
from conformance.stages.client.scenarios import SCENARIOS
from conformance.stages.client.settings import settings_from
from conformance.verdict.finding import Finding
from tests.faulty.clients.catalogue import ClientVariant

FAIL, PASS, UNMEASURED = Judged.FAIL, Judged.PASS, Judged.NOT_MEASURABLE

RUNNER = Path(__file__).with_name("run.py")


def command_for(name: str) -> str:
    return shlex.join([sys.executable, str(RUNNER), name])


@dataclass(frozen=True)
class Outcome:
    """What the stage made of one variant."""

    failed: frozenset[str]
    passed: frozenset[str]
    unmeasured: frozenset[str]
    findings: tuple[Finding, ...]

    def describe(self) -> str:
        return "\n".join(
            f"{f.requirement}: {f.outcome}: {f.title} | {f.received[:400]}"
            for f in self.findings
            if f.outcome != PASS
        )


def run_variant(variant: ClientVariant) -> Outcome:
    settings = dataclasses.replace(
        settings_from(command_for(variant.name), None), **variant.profile
    )
    runs = run_scenarios(settings, SCENARIOS)
    findings = tuple(f for run in runs.values() for f in judge(run))
    failed = frozenset(f.requirement for f in findings if f.outcome == FAIL)
    unmeasured = frozenset(f.requirement for f in findings if f.outcome == UNMEASURED) - failed
    passed = frozenset(f.requirement for f in findings if f.outcome == PASS) - failed - unmeasured
    return Outcome(failed, passed, unmeasured, findings)
