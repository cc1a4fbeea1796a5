"""``conformance badge REPORT --output badge.svg [--level drop-in]``: a report's verdict as a
shields-style SVG badge, for a README: "conformance | conformant · 165/165 pass", coloured by the
verdict. The drop-in form gives the second level ("drop-in | not compatible · 2 conventions")."""

from __future__ import annotations

from html import escape

from conformance.report.model import Report
from conformance.verdict.outcome import Outcome
from conformance.verdict.run_verdict import Level, Verdict

# shields.io's named colours: brightgreen, yellow, lightgrey, red.
COLOURS: dict[Verdict, str] = {
    Verdict.CONFORMANT: "#4c1",
    Verdict.CONFORMANT_WITH_EXCEPTIONS: "#dfb317",
    Verdict.INCOMPLETE: "#9f9f9f",
    Verdict.NOT_CONFORMANT: "#e05d44",
}
WORDS: dict[Level, dict[Verdict, str]] = {
    Level.INTERFACE: {
        Verdict.CONFORMANT: "conformant",
        Verdict.CONFORMANT_WITH_EXCEPTIONS: "conformant with exceptions",
        Verdict.INCOMPLETE: "incomplete",
        Verdict.NOT_CONFORMANT: "not conformant",
    },
    Level.DROP_IN: {
        Verdict.CONFORMANT: "compatible",
        Verdict.CONFORMANT_WITH_EXCEPTIONS: "compatible with exceptions",
        Verdict.INCOMPLETE: "incomplete",
        Verdict.NOT_CONFORMANT: "not compatible",
    },
}
LABELS = {Level.INTERFACE: "conformance", Level.DROP_IN: "drop-in"}
# Verdana 11px advance widths (as shields measures), by character class; the rest are 7.
NARROW = frozenset("ijlt!.,:;'|()[] ")  # about 3.5 px
WIDE = frozenset("mwMW%@")  # about 10 px
PADDING = 10


def text_width(text: str) -> float:
    return sum(3.5 if c in NARROW else 10.0 if c in WIDE else 7.0 for c in text)


def message(report: Report, level: Level) -> str:
    """The badge's right half: the verdict at ``level``, and what it counts."""
    verdict = report.verdict_at(level)
    words = WORDS[level][verdict]
    differs = len({d.key for d in report.differences})
    if level is Level.DROP_IN and differs:
        counted = "1 convention differs" if differs == 1 else f"{differs} conventions differ"
        return f"{words} · {counted}"
    passed = report.counts[Outcome.PASS.value]
    return f"{words} · {passed}/{len(report.requirements)} pass"


def render(report: Report, level: Level = Level.INTERFACE) -> str:
    label, value = LABELS[level], message(report, level)
    colour = COLOURS[report.verdict_at(level)]
    left, right = text_width(label) + PADDING, text_width(value) + PADDING
    width = left + right
    title = escape(f"{label}: {value}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="20" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{width:.0f}" height="20" rx="3" fill="#fff"/></clipPath>'
        '<g clip-path="url(#r)">'
        f'<rect width="{left:.0f}" height="20" fill="#555"/>'
        f'<rect x="{left:.0f}" width="{right:.0f}" height="20" fill="{colour}"/>'
        f'<rect width="{width:.0f}" height="20" fill="url(#s)"/></g>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" '
        'font-size="11">'
        f'<text x="{left / 2:.1f}" y="14" class="label">{escape(label)}</text>'
        f'<text x="{left + right / 2:.1f}" y="14" class="message">{escape(value)}</text>'
        "</g></svg>\n"
    )
