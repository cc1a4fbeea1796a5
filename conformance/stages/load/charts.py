"""The load stage's HTML section: its figures and four charts over time (requests/s, p50/p99
latency, share of 200s carrying the hint, 429s of well-behaved against noisy instances) as
inline SVG polylines; no script, no network. Drawn from the details alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from conformance.stages.load.summary import describe

WIDTH, HEIGHT, PAD = 560, 140, 32
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")


def _line(points: Sequence[tuple[float, float]], top: float, span: float, colour: str) -> str:
    if not points:
        return ""
    xs = [
        f"{PAD + (t / span) * (WIDTH - 2 * PAD):.1f},"
        f"{HEIGHT - PAD - (v / top) * (HEIGHT - 2 * PAD):.1f}"
        for t, v in points
    ]
    return f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(xs)}"/>'


def _number(row: Mapping[str, object], key: str) -> float | None:
    """One per-second value of the series (None: not recorded that second)."""
    value = row.get(key)
    return float(value) if isinstance(value, int | float) else None


def chart(
    title: str, series: Sequence[Mapping[str, object]], keys: Sequence[str], unit: str
) -> str:
    """One chart of ``keys`` (per-second values) against time, with its scale and legend."""
    times = [_number(row, "t") or 0.0 for row in series]
    span = max(times, default=1.0) or 1.0
    values = [v for row in series for k in keys if (v := _number(row, k)) is not None]
    top = max(values, default=1.0) or 1.0
    lines = "".join(
        _line(
            [
                (t, v)
                for t, r in zip(times, series, strict=True)
                if (v := _number(r, k)) is not None
            ],
            top,
            span,
            COLOURS[i % len(COLOURS)],
        )
        for i, k in enumerate(keys)
    )
    legend = "".join(
        f'<text x="{PAD + 120 * i}" y="{HEIGHT - 6}" fill="{COLOURS[i % len(COLOURS)]}" '
        f'font-size="11">{escape(k)}</text>'
        for i, k in enumerate(keys)
    )
    axes = (
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
        'stroke="#888"/>'
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#888"/>'
        f'<text x="2" y="{PAD}" font-size="10">{top:g}{escape(unit)}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - PAD + 12}" font-size="10">{span:g}s</text>'
    )
    return (
        f"<figure><figcaption>{escape(title)}</figcaption>"
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="{escape(title)}">{axes}{lines}{legend}</svg></figure>'
    )


def html(details: Mapping[str, object]) -> str:
    rows = details.get("series")
    series = [row for row in rows if isinstance(row, Mapping)] if isinstance(rows, list) else []
    lines = "".join(f"<li>{escape(line)}</li>" for line in describe(details))
    charts = "".join(
        (
            chart("Requests per second", series, ["rps"], "/s"),
            chart("Latency (ms)", series, ["p50_ms", "p99_ms"], " ms"),
            chart("Share of 200s carrying the polling hint", series, ["hint_share"], ""),
            chart("429s per second", series, ["r429_well", "r429_noisy", "r429_other"], "/s"),
        )
    )
    return f"<h2>Load stage</h2><ul>{lines}</ul>{charts if series else ''}"
