"""``conformance flaky``: run the suite N times against the reference server and compare verdicts.

Each run is a separate ``conformance run`` (a fresh embedded reference server with its own
database) in a child process. The command reports, per requirement, every outcome it saw; a
requirement with more than one outcome is flaky. Exit 0 when all runs agree and are conformant
(with or without declared exceptions); an incomplete or not-conformant verdict, or any difference,
exits 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from conformance.verdict.run_verdict import Verdict

RUN_TIMEOUT_SECONDS = 1800
PASSING_VERDICTS = frozenset({Verdict.CONFORMANT.value, Verdict.CONFORMANT_WITH_EXCEPTIONS.value})


def run_once(report_dir: Path, stage: str, workers: str) -> tuple[dict[str, str], str, float]:
    """One ``conformance run`` against the embedded server: (outcome per id, verdict, seconds)."""
    started = time.monotonic()
    command = [sys.executable, "-m", "conformance.cli", "run", "--quiet", "--stage", stage]
    command += ["--workers", workers, "--report-dir", str(report_dir)]
    subprocess.run(command, capture_output=True, timeout=RUN_TIMEOUT_SECONDS, check=False)
    seconds = time.monotonic() - started
    path = report_dir / "conformance.json"
    if not path.exists():
        return {}, "no report", seconds
    data = json.loads(path.read_text(encoding="utf-8"))
    outcomes = {r["id"]: r["outcome"] for r in data["requirements"]}
    return outcomes, str(data.get("verdict", "")), seconds


def differences(runs: list[dict[str, str]]) -> dict[str, Counter[str]]:
    """Requirements whose outcome differs between runs (absent from a run counts as 'missing')."""
    ids = sorted({i for run in runs for i in run})
    seen = {i: Counter(run.get(i, "missing") for run in runs) for i in ids}
    return {i: c for i, c in seen.items() if len(c) > 1}


def flaky(count: int, stage: str, workers: str, keep: str | None) -> int:
    """``conformance flaky``: ``count`` runs of ``stage``, a line for each, the differences."""
    if count < 2:
        print("conformance flaky: --runs must be 2 or more", file=sys.stderr)
        return 2
    base = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="cf-flaky-"))
    runs: list[dict[str, str]] = []
    verdicts: list[str] = []
    started = time.monotonic()
    for index in range(count):
        outcomes, verdict, seconds = run_once(base / f"run-{index + 1:02d}", stage, workers)
        runs.append(outcomes)
        verdicts.append(verdict)
        counts = Counter(outcomes.values())
        shown = ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
        print(f"run {index + 1}/{count}: {verdict} ({shown}) in {seconds:.0f}s", flush=True)
    changed = differences(runs)
    elapsed = time.monotonic() - started
    print(
        f"conformance flaky: {count} runs in {elapsed:.0f}s; verdicts "
        f"{dict(Counter(verdicts))}; {len(changed)} requirement(s) with differing outcomes"
    )
    for requirement_id, counter in changed.items():
        print(f"  {requirement_id}: " + ", ".join(f"{o} x{n}" for o, n in counter.most_common()))
    identical = not changed and len(set(verdicts)) == 1
    return 0 if identical and verdicts[0] in PASSING_VERDICTS else 1
