"""conformance.md: a one-screen summary for a pull-request comment or a CI job summary."""

from __future__ import annotations

import re

from conformance.report.evidence_text import truncate
from conformance.report.headline import decided_by, measured_share
from conformance.report.levels import by_key, levels_sentence
from conformance.report.model import Report, RequirementResult
from conformance.report.sections import by_section, outcome_counts
from conformance.report.stage_text import summary_lines
from conformance.report.vocabulary import (
    OUTCOME_ORDER,
    OUTCOME_STYLES,
    VERDICT_STYLES,
    not_measured_sentence,
)
from conformance.verdict.evidence import Evidence
from conformance.verdict.outcome import DECLARED, Outcome

FAILURES_SHOWN = 10  # beyond this, the reader is sent to conformance.html
TEXT_LIMIT = 300  # characters of expected/received shown per failure
FOLD_IDS = 8  # longer id lists fold into <details> (GitHub renders it; plain text stays readable)
MARKDOWN_ESCAPED = frozenset("\\|<>[]")  # table breaks, raw HTML, links
TEST_PREFIX = re.compile(r"^\S+::\S+: ")  # the test id fold() puts before each test's note


def _cell(text: str) -> str:
    """Text on one line, safe inside a Markdown table cell (no table break, HTML or link)."""
    flat = " ".join(text.split())
    return "".join(f"\\{c}" if c in MARKDOWN_ESCAPED else c for c in flat)


def _inline(text: str) -> str:
    """Text as an inline code span, whatever backticks it holds."""
    flat = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _block(text: str, language: str = "") -> list[str]:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return [f"{fence}{language}", text, fence]


def _header(report: Report) -> list[str]:
    style = VERDICT_STYLES[report.verdict]
    return [
        f"# {style.mark} RCES conformance: {style.headline}, {measured_share(report)}",
        "",
        f"**{_cell(decided_by(report))}**",
        "",
        f"Levels: {_cell(levels_sentence(report))}.",
        "",
        " ".join(
            filter(None, [style.explanation, not_measured_sentence(len(report.not_measured))])
        ),
        "",
        f"- Target: {_inline(report.target_url)}"
        f" (fingerprint {_inline(report.target_fingerprint)})",
        f"- Suite {_inline(report.suite_version)}, contract sha256 "
        f"{_inline(report.contract_sha256[:12])}, catalogue sha256 "
        f"{_inline(report.catalogue_sha256[:12])}",
        f"- Started {report.started_at}, took {report.duration_s:.1f} s",
        "",
    ]


def _totals(report: Report) -> list[str]:
    counts = outcome_counts(report.requirements)
    parts = [
        f"{OUTCOME_STYLES[o].mark} {counts[o]} {OUTCOME_STYLES[o].label}" for o in OUTCOME_ORDER
    ]
    return [f"**{len(report.requirements)} requirements:** " + " · ".join(parts), ""]


def _section_table(report: Report) -> list[str]:
    head = "| Section | " + " | ".join(OUTCOME_STYLES[o].label for o in OUTCOME_ORDER) + " |"
    rule = "|---|" + "---:|" * len(OUTCOME_ORDER)
    lines = ["## Outcomes per section", "", head, rule]
    for section, requirements in by_section(report):
        counts = outcome_counts(requirements)
        cells = " | ".join(str(counts[o]) if counts[o] else "·" for o in OUTCOME_ORDER)
        lines.append(f"| {_cell(section)} | {cells} |")
    return [*lines, ""]


def _evidence(evidence: Evidence) -> list[str]:
    lines = [
        f"- Test: {_inline(evidence.test_id)}: {_cell(evidence.title)}",
        f"- Expected: {_cell(truncate(evidence.expected, TEXT_LIMIT))}",
        f"- Received: {_cell(truncate(evidence.received, TEXT_LIMIT))}",
    ]
    if evidence.check:
        lines.append(f"- Check: {_inline(evidence.check)}")
    if evidence.seed is not None:
        lines.append(f"- Seed: {_inline(str(evidence.seed))}")
    if evidence.curl:
        lines += ["", *_block(evidence.curl, "sh")]
    return lines


def _subject(requirement: RequirementResult) -> str:
    """The heading's note on a rule of the SDK client (the client stage); none for a server's."""
    return "" if requirement.subject == "server" else f", {_cell(requirement.subject)} rule"


def _failure(requirement: RequirementResult) -> list[str]:
    lines = [
        f"### {requirement.id} (§{_cell(requirement.section)}{_subject(requirement)})",
        "",
        f"> {_cell(requirement.text)}",
        "",
    ]
    if not requirement.evidence:
        lines += [f"- Tests: {', '.join(requirement.tests) or '(none)'}; no evidence recorded"]
    for evidence in requirement.evidence:
        lines += [*_evidence(evidence), ""]
    return lines


def _failures(report: Report) -> list[str]:
    failed = [
        r for r in sorted(report.requirements, key=lambda r: r.id) if r.outcome is Outcome.FAIL
    ]
    if not failed:
        return []
    lines = [f"## Failures ({len(failed)})", ""]
    for requirement in failed[:FAILURES_SHOWN]:
        lines += _failure(requirement)
    if len(failed) > FAILURES_SHOWN:
        lines += [f"…and {len(failed) - FAILURES_SHOWN} more: see conformance.html.", ""]
    return lines


def _reason(note: str) -> str:
    """A note without the test ids it names ("<test id>: <reason>; ..."), each reason once: one
    reason shared by several tests (a profile key not set) groups their requirements together."""
    parts = (TEST_PREFIX.sub("", part) for part in note.split("; "))
    return "; ".join(dict.fromkeys(parts))


def _listing(title: str, requirements: list[RequirementResult]) -> list[str]:
    """Requirements grouped by outcome and reason; long id lists fold into <details>."""
    if not requirements:
        return []
    groups: dict[tuple[str, str], list[str]] = {}
    for r in requirements:
        label = OUTCOME_STYLES[r.outcome].label
        reason = _reason(r.note).removeprefix(f"{label}: ")  # "not configured: set ..."
        groups.setdefault((label, reason or "no reason recorded"), []).append(r.id)
    lines = [f"## {title} ({len(requirements)})", ""]
    for (outcome, reason), ids in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
        head = f"- {outcome} ({len(ids)}): {_cell(reason)}"
        listed = ", ".join(f"`{rid}`" for rid in ids)
        if len(ids) <= FOLD_IDS:
            lines.append(f"{head}: {listed}")
        else:
            lines += [head, f"  <details><summary>{len(ids)} requirements</summary>", ""]
            lines += [f"  {listed}", "", "  </details>"]
    return [*lines, ""]


def _differences(report: Report) -> list[str]:
    """The drop-in level: each convention the target departs from, with the key to declare."""
    entries = by_key(report)
    if not entries:
        return []
    lines = [
        f"## Drop-in differences ({len(entries)})",
        "",
        "Production conventions the target departs from and its profile does not declare: not "
        "interface failures, but real game clients of the production service may rely on them. "
        "Declare the target's own choice under the key, or follow the convention.",
        "",
        "| Profile key | Convention | Received | Requirements |",
        "|---|---|---|---|",
    ]
    for entry in entries:
        received = truncate("; ".join(entry.received), TEXT_LIMIT)
        lines.append(
            f"| `{_cell(entry.key)}` | {_cell(entry.convention)} | {_cell(received)} | "
            + ", ".join(f"`{rid}`" for rid in entry.requirement_ids)
            + " |"
        )
    return [*lines, ""]


def _stages(report: Report) -> list[str]:
    if not report.stages:
        return []
    lines = ["## Stages", "", "| Stage | Tests | Test time | Details |", "|---|---:|---:|---|"]
    for stage in report.stages:
        details = "<br>".join(_cell(line) for line in summary_lines(stage))
        lines.append(
            f"| {_cell(stage.name)} | {stage.tests} | {stage.duration_s:.1f} s | {details} |"
        )
    lines += [
        "",
        "Test time: the stage's test durations added up; parallel workers run tests at once, so "
        f"it may exceed the run's own {report.duration_s:.1f} s.",
    ]
    return [*lines, ""]


def summary(report: Report) -> str:
    """The short form for a CI job summary: the headline, the totals and the failures."""
    lines = [*_header(report), *_totals(report), *_failures(report)]
    return "\n".join(lines).rstrip() + "\n"


def render(report: Report) -> str:
    by_id = sorted(report.requirements, key=lambda r: r.id)
    lines = [
        *_header(report),
        *_totals(report),
        *_failures(report),
        *_differences(report),
        *_listing("Not measured", [r for r in by_id if r.outcome is Outcome.NOT_MEASURABLE]),
        *_listing("Declared exceptions", [r for r in by_id if r.outcome in DECLARED]),
        *_section_table(report),
        *_stages(report),
    ]
    return "\n".join(lines).rstrip() + "\n"
