"""The fuzz stage summary: per-worker tallies merged into the one ``StageSummary`` detail dict."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

# Keys summed across workers; the others are taken from the first worker (same for all).
SUMMED = ("cases", "rate_limited", "unsent")
COUNTED = ("failures_by_check", "spec_doubts_by_check")
SHARED = ("tier", "seed", "budget", "contract")


def merge_details(per_worker: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One summary from each worker's latest summary."""
    if not per_worker:
        return {}
    first = per_worker[0]
    merged: dict[str, Any] = {key: first.get(key) for key in SHARED}
    for key in SUMMED:
        merged[key] = sum(int(d.get(key, 0)) for d in per_worker)
    for key in COUNTED:
        total: Counter[str] = Counter()
        for details in per_worker:
            total.update(details.get(key, {}))
        merged[key] = dict(sorted(total.items()))
    merged["duration_s"] = max(float(d.get("duration_s", 0.0)) for d in per_worker)
    merged["budget_exhausted"] = any(d.get("budget_exhausted") for d in per_worker)
    merged["workers"] = len(per_worker)
    merged["failures"] = sum(merged["failures_by_check"].values())
    corpora = [d["corpus"] for d in per_worker if d.get("corpus")]
    if corpora:
        # Every worker read the same replay (done once per run); each wrote its own new cases.
        corpus = dict(corpora[0])
        corpus["replay_seconds"] = max(float(c.get("replay_seconds", 0.0)) for c in corpora)
        corpus["written"] = sorted({name for c in corpora for name in c.get("written", ())})
        corpus["problems"] = sorted({text for c in corpora for text in c.get("problems", ())})
        merged["corpus"] = corpus
    return merged


def summary_lines(details: Mapping[str, Any]) -> list[str]:
    """The stage's details as lines a person reads: terminal summary and reports alike."""
    failures = dict(details.get("failures_by_check") or {})
    doubts = dict(details.get("spec_doubts_by_check") or {})
    lines = [
        f"fuzz: tier {details.get('tier')}, seed {details.get('seed')}: "
        f"{details.get('cases', 0)} cases"
        + (f" in {float(details['duration_s']):.1f}s" if "duration_s" in details else "")
        + ", "
        f"{sum(failures.values())} failing checks, {sum(doubts.values())} spec-doubts, "
        f"{details.get('rate_limited', 0)} rate-limited, {details.get('unsent', 0)} unsent"
    ]
    for title, table in (("failing", failures), ("spec-doubt", doubts)):
        lines += [f"  {title}: {check} on {count} operation(s)" for check, count in table.items()]
    return (
        lines
        + contract_lines(details.get("contract") or {})
        + corpus_lines(details.get("corpus") or {})
    )


def contract_lines(contract: Mapping[str, Any]) -> list[str]:
    """Which document was fuzzed, when the profile made it differ from the contract."""
    declared = dict(contract.get("declared") or {})
    if not declared:
        return []
    return [
        f"  contract in the target's terms ({len(declared)} declared key(s), sha256 "
        f"{str(contract.get('specialised_sha256'))[:12]}): conformance contract --profile "
        "writes it"
    ]


def corpus_lines(corpus: Mapping[str, Any]) -> list[str]:
    """The corpus replay and what was kept, one line each case that changed state."""
    if not corpus:
        return []
    regressions, fixed = corpus.get("regressions") or [], corpus.get("fixed") or []
    inconclusive, written = corpus.get("inconclusive") or [], corpus.get("written") or []
    lines = [
        f"  corpus {corpus.get('directory')}: {corpus.get('replayed', 0)} case(s) replayed in "
        f"{float(corpus.get('replay_seconds', 0.0)):.1f}s: {len(regressions)} regression(s), "
        f"{len(fixed)} fixed, {len(inconclusive)} inconclusive; {len(written)} new case(s) kept"
    ]
    lines += [f"    regression: {name}" for name in regressions]
    lines += [f"    fixed: {name} (conformance fuzz prune removes it)" for name in fixed]
    lines += [f"    inconclusive: {name}" for name in inconclusive]
    lines += [f"    new: {name}" for name in written]
    lines += [f"    not kept: {text}" for text in corpus.get("problems") or ()]
    return lines
