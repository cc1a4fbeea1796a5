"""The fuzz stage summary: per-worker tallies merged into the one ``StageSummary`` detail dict."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

# Keys summed across workers; the others are taken from the first worker (same for all).
SUMMED = ("cases", "rate_limited", "unsent")
COUNTED = ("failures_by_check", "spec_doubts_by_check")
SHARED = ("tier", "seed", "budget")


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
    return merged
