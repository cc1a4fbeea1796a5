"""The headline every format leads with: the measured share, and what decided the verdict.

One wording for the terminal line, the Markdown and HTML headlines and the JUnit properties, so a
reader sees "measured 42 of 165" before anything else, and a verdict never reads better than the
evidence behind it.
"""

from __future__ import annotations

import re

from conformance.errors import BLOCKED_PREFIX
from conformance.report.levels import drop_in_phrase
from conformance.report.model import Report
from conformance.report.vocabulary import OUTCOME_ORDER, OUTCOME_STYLES
from conformance.verdict.outcome import DECLARED, Outcome
from conformance.verdict.run_verdict import Verdict

IDS_NAMED = 5  # ids named in a headline; more are counted, and listed further down
BLOCKED = re.compile(re.escape(BLOCKED_PREFIX) + r"(.+?)(?=; \S+::|$)")  # a note's one cause


def measured_share(report: Report) -> str:
    """ "measured 42 of 165 requirements": judged (pass, fail, known failure, spec doubt)."""
    total = report.applicable
    noun = "requirement" if total == 1 else "requirements"
    return f"measured {report.measured} of {total} {noun}"


def _named(ids: list[str]) -> str:
    shown = ", ".join(ids[:IDS_NAMED])
    more = len(ids) - IDS_NAMED
    return f"{shown} and {more} more" if more > 0 else shown


def _ids(report: Report, outcome: Outcome) -> list[str]:
    return sorted(r.id for r in report.requirements if r.outcome is outcome)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def blocked_by(report: Report) -> dict[str, list[str]]:
    """Each refused step (``conformance.errors.SetupRefused``) and the requirements it left not
    measured, most first: one cause each, however many scenarios needed the step."""
    found: dict[str, list[str]] = {}
    for requirement in sorted(report.requirements, key=lambda r: r.id):
        if requirement.outcome is not Outcome.NOT_MEASURABLE:
            continue
        for cause in dict.fromkeys(BLOCKED.findall(requirement.note)):
            found.setdefault(cause, []).append(requirement.id)
    return dict(sorted(found.items(), key=lambda item: -len(item[1])))


def blocked_sentence(report: Report) -> str:
    """ "12 more not measured, blocked by 1 refused step: the target did not let ..." or ""."""
    causes = blocked_by(report)
    if not causes:
        return ""
    count = len({rid for ids in causes.values() for rid in ids})
    steps = "; ".join(f"{cause} ({len(ids)})" for cause, ids in causes.items())
    return (
        f"{_plural(count, 'requirement')} not measured, blocked by "
        f"{_plural(len(causes), 'refused step')}: {steps}."
    )


def decided_by(report: Report) -> str:
    """What decided the verdict, specifically: which requirements failed, what was not measured
    (a refused step named once, as the one cause of all it blocked), which exceptions were
    declared."""
    verdict = report.verdict
    blocked = blocked_sentence(report)
    if verdict is Verdict.NOT_CONFORMANT:
        failed = _ids(report, Outcome.FAIL)
        said = f"{_plural(len(failed), 'requirement')} failed: {_named(failed)}."
        return f"{said} {blocked}" if blocked else said
    if verdict is Verdict.INCOMPLETE:
        if blocked:
            return blocked
        missing = _ids(report, Outcome.NOT_MEASURABLE)
        return (
            f"{_plural(len(missing), 'requirement')} not measured, for a reason the profile does "
            f"not declare: {_named(missing)}."
        )
    if verdict is Verdict.CONFORMANT_WITH_EXCEPTIONS:
        counts = report.counts
        declared = [
            f"{counts[o.value]} {OUTCOME_STYLES[o].label}"
            for o in OUTCOME_ORDER
            if o in DECLARED and counts[o.value]
        ]
        return f"No failure; declared exceptions: {', '.join(declared)}."
    return f"All {_plural(report.applicable, 'requirement')} in scope passed."


def counts_phrase(report: Report) -> str:
    """ "42 pass, 123 not-measurable": the non-zero outcome counts, pass first."""
    counts = report.counts
    order = [Outcome.PASS, *(o for o in OUTCOME_ORDER if o is not Outcome.PASS)]
    return ", ".join(f"{counts[o.value]} {o.value}" for o in order if counts[o.value])


def summary_line(report: Report, elapsed_s: float | None = None, where: str = "") -> str:
    """The one line a run prints: verdict, measured share, counts, time, where the reports are."""
    took = f" in {elapsed_s:.1f}s" if elapsed_s is not None else ""
    reports = f"; reports in {where}/" if where else ""
    return (
        f"conformance: {report.verdict.value}: {measured_share(report)} "
        f"({counts_phrase(report)}){took}; {drop_in_phrase(report)}{reports}"
    )
