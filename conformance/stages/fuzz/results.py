"""A fuzz run's results: each test's findings folded into its record, and the stage's details.

``record_for`` speaks for one fuzz test (one operation in its modes, or every operation the
stateful scenarios reached): each requirement passes when cases were answered, is not measurable
when none was (the tier's budget ran out, or every answer was a 429 the fuzzer's own pace
caused), and each failure noted for the test is a ``Finding`` of its requirements, failed or, when
only a contract gap is touched, a spec doubt; ``verdict.records.record_of`` folds them into the
test's record (each requirement at its worst). A drop-in failure is a ``Difference``, never a
finding. ``details`` is the stage summary one process publishes.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING

from schemathesis.core.failures import FailureGroup

from conformance.contract.document import operations
from conformance.stages.fuzz.failure_level import DROP_IN
from conformance.stages.fuzz.response_checks import CUSTOM_BY_NAME, operation_requirements
from conformance.verdict.difference import Difference
from conformance.verdict.evidence import Evidence
from conformance.verdict.finding import EVERY, Finding, doubted, failed, passed, unmeasured
from conformance.verdict.records import TestRecord, record_of

if TYPE_CHECKING:
    from conformance.json_types import JsonObject
    from conformance.registry.fuzz_budget import Tier
    from conformance.stages.fuzz.answers import FuzzCampaign
    from conformance.stages.fuzz.failures import SeenFailure
    from conformance.stages.fuzz.tally import OperationTally


def record_for(
    run: FuzzCampaign,
    test_id: str,
    operation_id: str | None,
    modes: tuple[str, ...],
    ids: tuple[str, ...],
    duration_s: float,
    error: BaseException | None,
) -> TestRecord:
    """Per-requirement outcomes of one fuzz test: one operation (None: all) in ``modes``.

    A test of every operation (the stateful scenarios) speaks only for the requirements of
    operations its cases reached: the scenarios follow links and may never call one."""
    tallies = [t for (op, m), t in run.tallies.items() if m in modes and operation_id in (None, op)]
    if operation_id is None:
        reached = {op for (op, m), t in run.tallies.items() if m in modes and t.cases}
        ids = tuple(rid for rid in ids if _reached(rid, reached))
    if sum(t.cases - t.rate_limited for t in tallies):
        findings = [passed(rid) for rid in ids]
    else:
        reason = _unmeasured_reason(run.tier, tallies)
        findings = [unmeasured(rid, reason) for rid in ids]
    relevant = run.failures.of(operation_id, modes)
    differences = tuple(
        _difference(test_id, seen) for seen in relevant if seen.judged.level == DROP_IN
    )
    relevant = [seen for seen in relevant if seen.judged.level != DROP_IN]
    for seen in relevant:
        findings += _findings(seen)
    messages = [f"[{seen.check}] {seen.title} (x{seen.count})" for seen in relevant]
    # Real failures first, the suite's own (more specific) checks before built-ins.
    relevant.sort(key=lambda seen: (seen.doubt is not None, seen.check not in CUSTOM_BY_NAME))
    evidence = _evidence(test_id, relevant[0], run.seed) if relevant else None
    # Each requirement shows the failure that decided its outcome (the first, in that order).
    by_requirement: dict[str, Evidence] = {}
    for seen in relevant:
        if any(rid not in by_requirement for rid in seen.requirement_ids):
            found = _evidence(test_id, seen, run.seed)
            for rid in seen.requirement_ids:
                by_requirement.setdefault(rid, found)
    if error is not None and not messages and not isinstance(error, FailureGroup):
        # The test broke for a reason no check names (a transport error, a crash).
        broke = f"{type(error).__name__}: {error}"[:500]
        findings.append(failed(EVERY, "the fuzz test broke", "the test to finish", broke))
        messages.append(broke)
    return record_of(
        test_id,
        "fuzz",
        ids,
        findings,
        duration_s=duration_s,
        message="; ".join(messages),
        evidence=evidence,
        evidence_by_requirement=by_requirement,
        differences=differences,
    )


def _said(seen: SeenFailure) -> tuple[str, str, str]:
    """A failure's title (a doubt named), what was expected and what was received."""
    expected, _, received = seen.message.partition("\nReceived:")
    return (
        seen.title if not seen.doubt else f"{seen.title} (spec-doubt: {seen.doubt})",
        expected.removeprefix("Expected:").strip() or "the check to pass",
        received.strip() or f"HTTP {seen.status}",
    )


def _findings(seen: SeenFailure) -> list[Finding]:
    """A failure as a finding of each of its requirements: failed, or a spec doubt when only
    an element the contract does not show or infers is touched."""
    title, expected, received = _said(seen)
    if seen.doubt:
        note = f"only a {seen.doubt} element of the contract is touched"
        return [doubted(rid, title, expected, received, note) for rid in seen.requirement_ids]
    return [failed(rid, title, expected, received) for rid in seen.requirement_ids]


def _evidence(test_id: str, seen: SeenFailure, seed: int) -> Evidence:
    title, expected, received = _said(seen)
    return Evidence(
        test_id=test_id,
        requirement_ids=seen.requirement_ids,
        title=title,
        expected=expected,
        received=received,
        curl=seen.curl,
        check=seen.check,
        seed=seed,
    )


def _difference(test_id: str, seen: SeenFailure) -> Difference:
    """A drop-in failure as the difference it shows, with the key that would declare the
    target's choice (else the contract element of a convention no key expresses)."""
    return Difference(
        requirement_ids=seen.requirement_ids,
        key=seen.judged.key,
        convention=seen.judged.convention,
        received=seen.judged.received,
        title=f"{seen.title} (x{seen.count})",
        test_id=test_id,
        curl=seen.curl,
    )


def _unmeasured_reason(tier: Tier, tallies: list[OperationTally]) -> str:
    if any(t.unsent for t in tallies):
        return f"the {tier.name} tier's time budget ran out before this operation"
    paced = [t.own_pace for t in tallies if t.rate_limited]
    if paced:
        return (
            "every request was refused 429 after the fuzzer's own traffic spent the declared "
            f"bucket (the suite's doing): {paced[-1]}"
        )
    return "no example was generated for this operation"


def _reached(requirement_id: str, reached: set[str]) -> bool:
    """Whether an operation that ``requirement_id`` belongs to is among those ``reached``."""
    holders = reached if reached else {op.operation_id for op in operations()}
    return any(requirement_id in operation_requirements(op) for op in holders)


def details(run: FuzzCampaign, corpus: JsonObject | None = None) -> dict[str, object]:
    """The stage summary: tier, seed, cases, duration, failures by check; ``corpus``: the
    failure corpus's own (``corpus.keeping.CorpusKeeper.details``), None without one."""
    by_check: Counter[str] = Counter()
    doubts: Counter[str] = Counter()
    differences: Counter[str] = Counter()
    for seen in run.failures.values():
        if seen.judged.level == DROP_IN:
            differences[seen.judged.key] += 1
        else:
            (doubts if seen.doubt else by_check)[seen.check] += 1
    return {
        "tier": run.tier.name,
        "seed": run.seed,
        "budget": run.tier.describe(),
        "cases": sum(t.cases for t in run.tallies.values()),
        "rate_limited": sum(t.rate_limited for t in run.tallies.values()),
        "unsent": sum(t.unsent for t in run.tallies.values()),
        "budget_exhausted": run.budget_exhausted,
        "suite_errors": list(dict.fromkeys(run.suite_errors)),
        "duration_s": round(time.monotonic() - run.started, 3),
        "failures_by_check": dict(sorted(by_check.items())),
        "spec_doubts_by_check": dict(sorted(doubts.items())),
        "differences_by_key": dict(sorted(differences.items())),
        "operations": len({op for op, _ in run.tallies}),
        **run.case_log.details(),
        "statuses": {
            f"{op} ({kind})": {str(k): v for k, v in sorted(t.statuses.items())}
            for (op, kind), t in sorted(run.tallies.items())
        },
        "contract": run.contract,
        "corpus": corpus,
        "real_objects": {
            "configuration_id": run.target.objects.configuration_id,
            "experiment_id": run.target.objects.experiment_id,
            "problems": list(run.target.objects.problems),
        },
    }
