"""Running the client stage on one variant of the catalogue, in-process (no pytest inside
pytest): the scripted server, the variant as a process, the judges; what failed."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance.stages.client.dropin import split
from conformance.stages.client.judging import judge
from conformance.stages.client.runs import run_scenarios
from conformance.stages.client.scenarios import SCENARIOS
from conformance.stages.client.settings import settings_from
from conformance.verdict.difference import Difference
from conformance.verdict.finding import Finding
from conformance.verdict.outcome import Outcome as Judged
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
    differences: tuple[Difference, ...] = ()  # drop-in level: undeclared departures

    @property
    def differs(self) -> frozenset[str]:
        """The requirement ids of the drop-in differences noted."""
        return frozenset(rid for d in self.differences for rid in d.requirement_ids)

    def describe(self) -> str:
        return "\n".join(
            [
                f"{f.requirement}: {f.outcome}: {f.title} | {f.received[:400]}"
                for f in self.findings
                if f.outcome != PASS
            ]
            + [
                f"drop-in {list(d.requirement_ids)}: {d.key} (convention {d.convention}): "
                f"{d.received[:300]}"
                for d in self.differences
            ]
        )


def run_variant(variant: ClientVariant) -> Outcome:
    settings = dataclasses.replace(
        settings_from(command_for(variant.name), None),
        **variant.profile,
        declared=frozenset(variant.profile),  # the keys a profile would write
    )
    runs = run_scenarios(settings, SCENARIOS)
    found, differences = split(item for run in runs.values() for item in judge(run))
    findings = tuple(found)
    failed = frozenset(f.requirement for f in findings if f.outcome == FAIL)
    unmeasured = frozenset(f.requirement for f in findings if f.outcome == UNMEASURED) - failed
    passed = frozenset(f.requirement for f in findings if f.outcome == PASS) - failed - unmeasured
    return Outcome(failed, passed, unmeasured, findings, tuple(differences))
