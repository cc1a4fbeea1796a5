"""Vocabulary shared by the human-readable reports: outcome and verdict labels, order, colours."""

from __future__ import annotations

from typing import NamedTuple

from conformance.verdict.outcome import Outcome
from conformance.verdict.run_verdict import Verdict


class OutcomeStyle(NamedTuple):
    label: str
    mark: str  # a short symbol for terminals and Markdown
    colour: str  # CSS colour for the HTML report


# Display order: what a reader must act on first.
OUTCOME_STYLES: dict[Outcome, OutcomeStyle] = {
    Outcome.FAIL: OutcomeStyle("fail", "❌", "#c62828"),
    Outcome.KNOWN_FAILURE: OutcomeStyle("known failure", "🟠", "#ef6c00"),
    Outcome.SPEC_DOUBT: OutcomeStyle("spec doubt", "❔", "#8e24aa"),
    Outcome.NOT_MEASURABLE: OutcomeStyle("not measurable", "⚪", "#757575"),
    Outcome.NOT_CONFIGURED: OutcomeStyle("not configured", "⚙️", "#607d8b"),
    Outcome.UNSUPPORTED: OutcomeStyle("unsupported", "⏭️", "#546e7a"),
    Outcome.NOT_APPLICABLE: OutcomeStyle("not applicable", "⊘", "#90a4ae"),
    Outcome.PASS: OutcomeStyle("pass", "✅", "#2e7d32"),
}
OUTCOME_ORDER: tuple[Outcome, ...] = tuple(OUTCOME_STYLES)


class VerdictStyle(NamedTuple):
    headline: str
    mark: str  # emoji, for Markdown
    symbol: str  # plain symbol any system font has, for HTML
    colour: str
    explanation: str


VERDICT_STYLES: dict[Verdict, VerdictStyle] = {
    Verdict.CONFORMANT: VerdictStyle(
        "Conformant", "✅", "✓", "#2e7d32", "Every requirement in scope was measured and passed."
    ),
    Verdict.CONFORMANT_WITH_EXCEPTIONS: VerdictStyle(
        "Conformant with declared exceptions",
        "⚠️",
        "⚠",
        "#ef6c00",
        "No unexpected failure; some requirements are unsupported, not configured, known "
        "failures or spec doubts, as the profile declares.",
    ),
    Verdict.INCOMPLETE: VerdictStyle(
        "Incomplete",
        "🚧",
        "◐",
        "#5d4037",
        "Not certified: no requirement failed, but some in scope were not measured for a reason "
        "the profile does not declare.",
    ),
    Verdict.NOT_CONFORMANT: VerdictStyle(
        "Not conformant", "❌", "✗", "#c62828", "At least one requirement failed."
    ),
}


def label(outcome: Outcome) -> str:
    return OUTCOME_STYLES[outcome].label


def not_measured_sentence(count: int) -> str:
    """What the verdict leaves out, said next to it ("" when everything was measured)."""
    if not count:
        return ""
    noun = "requirement was" if count == 1 else "requirements were"
    return f"{count} {noun} not measured (not measurable, not configured or unsupported)."
