"""Report diffs for CI on pull requests: what newly fails, stops passing, newly passes, or changes.

Exit status of ``conformance diff``: 1 when a requirement newly fails (``fail`` now, anything else
or absent before) or stops passing (``pass`` before, any other outcome now: not-measurable,
not-configured, unsupported, known-failure, spec-doubt); 0 otherwise; 2 for a usage error (a
missing or invalid report). A requirement that disappears from the report is a change, not a
regression. The drop-in level is shown beside it (the conventions that newly differ, or no
longer do); with ``--level drop-in`` a convention that newly differs exits 1 too.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.report.model import Report
from conformance.verdict.outcome import Outcome
from conformance.verdict.run_verdict import Level


@dataclass(frozen=True)
class OutcomeChange:
    requirement_id: str
    old: Outcome | None  # None: the requirement is new
    new: Outcome | None  # None: the requirement is gone


@dataclass(frozen=True)
class ReportDiff:
    newly_passing: tuple[OutcomeChange, ...]
    newly_failing: tuple[OutcomeChange, ...]
    changed: tuple[OutcomeChange, ...]  # every other change of outcome (added, removed included)
    old_verdict: str
    new_verdict: str
    no_longer_passing: tuple[OutcomeChange, ...] = ()  # pass before, neither pass nor fail now
    old_drop_in: str = ""
    new_drop_in: str = ""
    newly_differing: tuple[str, ...] = ()  # convention keys the new report departs from only
    no_longer_differing: tuple[str, ...] = ()  # convention keys only the old report departs from

    @property
    def regressions(self) -> tuple[OutcomeChange, ...]:
        """Newly failing, and no longer passing: each one makes the diff exit 1."""
        return self.newly_failing + self.no_longer_passing

    def exit_code_at(self, level: Level) -> int:
        """1 when anything newly fails or stops passing (at the drop-in level: or a convention
        newly differs), else 0."""
        drop_in = level is Level.DROP_IN and bool(self.newly_differing)
        return 1 if self.regressions or drop_in else 0

    @property
    def exit_code(self) -> int:
        return self.exit_code_at(Level.INTERFACE)

    @property
    def unchanged(self) -> bool:
        return not (
            self.newly_passing
            or self.newly_failing
            or self.no_longer_passing
            or self.changed
            or self.newly_differing
            or self.no_longer_differing
        )


def diff_reports(old: Report, new: Report) -> ReportDiff:
    """Compare outcomes per requirement id. Newly failing: FAIL now, and not FAIL before (a new
    requirement that fails counts). No longer passing: PASS before, present now with any outcome
    but PASS or FAIL (pass -> not-measurable above all). Newly passing: PASS now, and something
    else before."""
    before = {r.id: r.outcome for r in old.requirements}
    after = {r.id: r.outcome for r in new.requirements}
    passing: list[OutcomeChange] = []
    failing: list[OutcomeChange] = []
    stopped: list[OutcomeChange] = []
    changed: list[OutcomeChange] = []
    for rid in sorted(before.keys() | after.keys()):
        was, now = before.get(rid), after.get(rid)
        if was == now:
            continue
        change = OutcomeChange(rid, was, now)
        if now is Outcome.FAIL:
            failing.append(change)
        elif now is Outcome.PASS:
            passing.append(change)
        elif was is Outcome.PASS and now is not None:
            stopped.append(change)
        else:
            changed.append(change)
    old_keys = dict.fromkeys(d.key for d in old.differences)
    new_keys = dict.fromkeys(d.key for d in new.differences)
    return ReportDiff(
        newly_passing=tuple(passing),
        newly_failing=tuple(failing),
        changed=tuple(changed),
        old_verdict=old.verdict.value,
        new_verdict=new.verdict.value,
        no_longer_passing=tuple(stopped),
        old_drop_in=old.drop_in_verdict.value,
        new_drop_in=new.drop_in_verdict.value,
        newly_differing=tuple(k for k in new_keys if k not in old_keys),
        no_longer_differing=tuple(k for k in old_keys if k not in new_keys),
    )


def _name(outcome: Outcome | None) -> str:
    return "(absent)" if outcome is None else outcome.value


def format_diff(diff: ReportDiff) -> str:
    """Plain text for a terminal or a CI log."""
    verdict = (
        f"Verdict: {diff.old_verdict}"
        if diff.old_verdict == diff.new_verdict
        else f"Verdict: {diff.old_verdict} -> {diff.new_verdict}"
    )
    drop_in = (
        f"Drop-in: {diff.old_drop_in}"
        if diff.old_drop_in == diff.new_drop_in
        else f"Drop-in: {diff.old_drop_in} -> {diff.new_drop_in}"
    )
    lines = [verdict, drop_in]
    for title, keys in (
        ("Conventions newly differing", diff.newly_differing),
        ("Conventions no longer differing", diff.no_longer_differing),
    ):
        if keys:
            lines += ["", f"{title} ({len(keys)}):", *(f"  {key}" for key in keys)]
    for title, changes in (
        ("Newly failing", diff.newly_failing),
        ("No longer passing", diff.no_longer_passing),
        ("Newly passing", diff.newly_passing),
        ("Changed outcome", diff.changed),
    ):
        if not changes:
            continue
        lines += ["", f"{title} ({len(changes)}):"]
        lines += [f"  {c.requirement_id}: {_name(c.old)} -> {_name(c.new)}" for c in changes]
    if diff.unchanged:
        lines += ["", "No requirement changed outcome."]
    return "\n".join(lines) + "\n"
