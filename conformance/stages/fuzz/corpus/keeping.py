"""The corpus in a fuzz run: replay first, report regressions and fixes, keep new failures.

``CorpusKeeper`` is what one process of a run knows about the corpus: where it is, what the replay
found (``replay.replay_once``: once per run whatever the number of workers), which new cases this
process wrote. ``record`` is the replay's ``TestRecord``: a regression fails its requirements
with the original and the new evidence, a fixed case passes them; ``details`` goes into the
stage summary (regressions and fixes by file, replay time, cases written).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.json_types import JsonArray, JsonObject
from conformance.stages.fuzz import corpus
from conformance.stages.fuzz.corpus.replay import FAILS, FIXED, INCONCLUSIVE, Replayed
from conformance.verdict.evidence import Evidence
from conformance.verdict.finding import Finding, failed, passed
from conformance.verdict.records import TestRecord, record_of

REPLAY_TEST_ID = "conformance.stages.fuzz.test_fuzz::corpus_replay"


@dataclass
class CorpusKeeper:
    """One process's keeping of the corpus: the replay's results, the cases it wrote."""

    directory: Path
    replayed: list[Replayed] = field(default_factory=list)
    replay_seconds: float = 0.0
    owner: bool = False  # this process replayed (and reports the replay's record)
    reported: bool = False
    written: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # cases that could not be written

    def regressed(self) -> set[tuple[str, str, str]]:
        """(operation, mode, check) of every case that failed again: found again, not new."""
        return {result.key for result in self.replayed if result.came_out == FAILS}

    def keep(self, cases: list[corpus.Case]) -> list[str]:
        """Write the new failures of one test; one that failed again on replay is not new."""
        regressed = self.regressed()
        written = []
        for data in cases:
            mode = "stateful" if data["kind"] == "stateful" else data["mode"]
            if (data["operation_id"], mode, data["check"]) in regressed:
                continue
            try:
                path = corpus.write(self.directory, data)
            except OSError as error:  # a read-only corpus must not break the run
                self.problems.append(f"{corpus.file_name(data)}: {error.strerror or error}")
                continue
            if path is not None:
                written.append(path.name)
        self.written += written
        return written

    def record(self) -> TestRecord | None:
        """The replay as one test record (None: an empty corpus): each case's requirements as
        findings, failed by a regression and passed by a fixed case, folded by
        ``verdict.records.record_of``; an inconclusive case judges nothing."""
        if not self.replayed:
            return None
        findings: list[Finding] = []
        evidence: dict[str, Evidence] = {}
        messages = []
        for result in self.replayed:
            if result.came_out == INCONCLUSIVE:
                messages.append(f"{result.path}: inconclusive ({result.reason})")
                continue
            if result.came_out != FAILS:
                findings += [passed(rid) for rid in result.requirement_ids]
                continue
            found = _evidence(result)
            for rid in result.requirement_ids:
                findings.append(failed(rid, found.title, found.expected, found.received))
                evidence.setdefault(rid, found)
            messages.append(f"regression: {result.path} [{result.check}] {result.title}")
        return record_of(
            REPLAY_TEST_ID,
            "fuzz",
            (),
            findings,
            duration_s=self.replay_seconds,
            message="; ".join(messages),
            evidence=next(iter(evidence.values()), None),
            evidence_by_requirement=evidence,
        )

    def details(self) -> JsonObject:
        def by(came_out: str) -> JsonArray:
            return [r.path for r in self.replayed if r.came_out == came_out]

        return {
            "directory": str(self.directory),
            "replayed": len(self.replayed),
            "replay_seconds": round(self.replay_seconds, 3),
            "regressions": by(FAILS),
            "fixed": by(FIXED),
            "inconclusive": by(INCONCLUSIVE),
            "written": [*self.written],
            "problems": [*self.problems],
        }


def _evidence(result: Replayed) -> Evidence:
    found = result.found
    new = result.reason.partition("\nReceived:")[2].strip() or f"HTTP {result.status}"
    then = found.get("received") or f"HTTP {found.get('status')}"
    seed = found.get("seed")
    return Evidence(
        test_id=REPLAY_TEST_ID,
        requirement_ids=tuple(result.requirement_ids),
        title=f"regression: {result.title} (corpus case {result.path})",
        expected=str(found.get("expected") or "the check to pass"),
        received=f"now: {new}; when found ({found.get('date')}, tier {found.get('tier')}, "
        f"seed {found.get('seed')}, suite {found.get('suite_version')}): {then}",
        curl=result.curl,
        check=result.check,
        seed=seed if isinstance(seed, int) else None,  # the schema holds it to an integer
    )
