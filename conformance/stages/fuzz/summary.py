"""The fuzz stage summary: per-worker tallies merged into the one ``StageSummary`` detail dict."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence

from conformance.json_types import JsonObject, JsonValue

# Keys summed across workers; the others are taken from the first worker (same for all).
SUMMED = ("cases", "rate_limited", "unsent")
COUNTED = ("failures_by_check", "spec_doubts_by_check", "differences_by_key")
SHARED = ("tier", "seed", "budget", "contract")


def merge_details(per_worker: Sequence[JsonObject]) -> JsonObject:
    """One summary from each worker's latest summary."""
    if not per_worker:
        return {}
    first = per_worker[0]
    merged: JsonObject = {key: first.get(key) for key in SHARED}
    for key in SUMMED:
        merged[key] = sum(int(_number(d.get(key, 0))) for d in per_worker)
    failures = 0
    for key in COUNTED:
        total: Counter[str] = Counter()
        for details in per_worker:
            total.update(_counts(details.get(key)))
        merged[key] = {check: count for check, count in sorted(total.items())}
        if key == "failures_by_check":
            failures = sum(total.values())
    merged["duration_s"] = max(float(_number(d.get("duration_s", 0.0))) for d in per_worker)
    merged["budget_exhausted"] = any(d.get("budget_exhausted") for d in per_worker)
    merged["workers"] = len(per_worker)
    # The generated cases (``case_log``): the fuzz items run on one worker, whose digest it is.
    logs = [d for d in per_worker if isinstance(d.get("cases_digest"), str)]
    merged["cases_logged"] = sum(int(_number(d.get("cases_logged", 0))) for d in logs)
    digests = sorted(str(d["cases_digest"]) for d in logs)
    merged["cases_digest"] = (
        digests[0]
        if len(digests) == 1
        else hashlib.sha256(" ".join(digests).encode()).hexdigest()
        if digests
        else None
    )
    merged["failures"] = failures
    # What the engine could not generate: the contract's doing, listed once whoever met it.
    unmet = sorted({text for d in per_worker for text in _texts(d.get("suite_errors"))})
    merged["suite_errors"] = list[JsonValue](unmet)
    corpora = [c for d in per_worker if isinstance(c := d.get("corpus"), dict) and c]
    if corpora:
        # Every worker read the same replay (done once per run); each wrote its own new cases.
        corpus = dict(corpora[0])
        corpus["replay_seconds"] = max(
            float(_number(c.get("replay_seconds", 0.0))) for c in corpora
        )
        written = sorted({name for c in corpora for name in _texts(c.get("written"))})
        problems = sorted({text for c in corpora for text in _texts(c.get("problems"))})
        corpus["written"], corpus["problems"] = list[JsonValue](written), list[JsonValue](problems)
        merged["corpus"] = corpus
    return merged


def _number(value: object) -> int | float:
    """A count or a duration a worker recorded (``int``/``float`` of what JSON carried)."""
    if isinstance(value, int | float):
        return value
    return float(str(value))


def _counts(value: object) -> dict[str, int]:
    """A worker's ``{check: operations}`` table (nothing recorded: empty)."""
    if not isinstance(value, Mapping):
        return {}
    return {str(check): int(_number(count)) for check, count in value.items()}


def _texts(value: object) -> list[str]:
    """A list of names or problems a worker recorded (nothing recorded: empty)."""
    return [str(item) for item in value] if isinstance(value, list | tuple) else []


def summary_lines(details: Mapping[str, object]) -> list[str]:
    """The stage's details as lines a person reads: terminal summary and reports alike."""
    failures = _counts(details.get("failures_by_check"))
    doubts = _counts(details.get("spec_doubts_by_check"))
    differences = _counts(details.get("differences_by_key"))
    lines = [
        f"fuzz: tier {details.get('tier')}, seed {details.get('seed')}: "
        f"{details.get('cases', 0)} cases"
        + (f" in {float(_number(details['duration_s'])):.1f}s" if "duration_s" in details else "")
        + ", "
        f"{sum(failures.values())} failing checks, {sum(doubts.values())} spec-doubts, "
        f"{details.get('rate_limited', 0)} rate-limited, {details.get('unsent', 0)} unsent"
        + (f", {len(differences)} drop-in difference(s)" if differences else "")
    ]
    for title, table in (("failing", failures), ("spec-doubt", doubts)):
        lines += [f"  {title}: {check} on {count} operation(s)" for check, count in table.items()]
    lines += [f"  differs (drop-in): {key} on {n} check(s)" for key, n in differences.items()]
    lines += [f"  not generated: {text}" for text in _texts(details.get("suite_errors"))]
    return (
        lines
        + contract_lines(_mapping(details.get("contract")))
        + corpus_lines(_mapping(details.get("corpus")))
    )


def contract_lines(contract: Mapping[str, object]) -> list[str]:
    """Which document was fuzzed, when the profile made it differ from the contract."""
    declared = _mapping(contract.get("declared"))
    if not declared:
        return []
    return [
        f"  contract in the target's terms ({len(declared)} declared key(s), sha256 "
        f"{str(contract.get('specialised_sha256'))[:12]}): conformance contract --profile "
        "writes it"
    ]


def corpus_lines(corpus: Mapping[str, object]) -> list[str]:
    """The corpus replay and what was kept, one line each case that changed state."""
    if not corpus:
        return []
    regressions, fixed = _texts(corpus.get("regressions")), _texts(corpus.get("fixed"))
    inconclusive, written = _texts(corpus.get("inconclusive")), _texts(corpus.get("written"))
    seconds = float(_number(corpus.get("replay_seconds", 0.0)))
    lines = [
        f"  corpus {corpus.get('directory')}: {corpus.get('replayed', 0)} case(s) replayed in "
        f"{seconds:.1f}s: {len(regressions)} regression(s), "
        f"{len(fixed)} fixed, {len(inconclusive)} inconclusive; {len(written)} new case(s) kept"
    ]
    lines += [f"    regression: {name}" for name in regressions]
    lines += [f"    fixed: {name} (conformance fuzz prune removes it)" for name in fixed]
    lines += [f"    inconclusive: {name}" for name in inconclusive]
    lines += [f"    new: {name}" for name in written]
    lines += [f"    not kept: {text}" for text in _texts(corpus.get("problems"))]
    return lines


def _mapping(value: object) -> Mapping[str, object]:
    """A nested table of the details (nothing recorded: empty)."""
    if not isinstance(value, Mapping):
        return {}
    return {str(key): item for key, item in value.items()}


def describe(details: JsonObject) -> list[str]:
    """The fuzz summary as the reports' stage lines (``Stage.describe``)."""
    head, *rest = summary_lines(details)
    return [head.removeprefix("fuzz: "), *(line.strip() for line in rest)]
