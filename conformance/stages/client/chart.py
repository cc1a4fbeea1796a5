"""The client stage's HTML section: per timing scenario, an inline SVG of the waits each
instance kept against the waits its answers asked for (a hollow dot: the wait after a connection
refused on accept, where no request was read). No script, no network; only what the details
hold."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from conformance.stages.client.evidence import Interval, read_intervals

WIDTH, HEIGHT, PAD = 560, 180, 34
COLOURS = ("#1f6feb", "#d97706", "#16a34a", "#9333ea", "#dc2626")


def stage_html(details: Mapping[str, object]) -> str:
    scenarios = details.get("scenarios")
    parts = ["<h3>Client stage: waits kept against waits asked</h3>"]
    for name, scenario in sorted(scenarios.items() if isinstance(scenarios, Mapping) else ()):
        if not isinstance(scenario, Mapping):
            continue
        intervals = read_intervals(scenario.get("intervals"))
        if not intervals:
            continue
        parts.append(
            f"<figure><figcaption>{escape(name)}: {escape(str(scenario.get('title', '')))}"
            "</figcaption>"
            f"{_svg(name, intervals)}</figure>"
        )
    return "".join(parts) if len(parts) > 1 else ""


def _svg(name: str, intervals: list[Interval]) -> str:
    """Dots: each wait kept, at its time; dashes: the shortest wait its answer asked for."""
    times = [float(i["at"]) for i in intervals]
    values = [float(i["kept"]) for i in intervals] + [
        float(asked) for i in intervals if (asked := i["asked"]) is not None
    ]
    t0, t1 = min(times), max(times) or 1.0
    top = max(values) * 1.1 or 1.0

    def x(t: float) -> float:
        return PAD + (WIDTH - 2 * PAD) * ((t - t0) / ((t1 - t0) or 1.0))

    def y(v: float) -> float:
        return HEIGHT - PAD + -(HEIGHT - 2 * PAD) * (v / top)

    instances = sorted({str(i["instance"]) for i in intervals})
    marks = [
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
        'stroke="#888"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#888"/>',
        f'<text x="4" y="{PAD - 8}" font-size="10">{top:.2f}s</text>',
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="10" text-anchor="end">'
        f"run time {t1:.1f}s</text>",
    ]
    for item in intervals:
        colour = COLOURS[instances.index(str(item["instance"])) % len(COLOURS)]
        cx, cy = x(float(item["at"])), y(float(item["kept"]))
        label = escape(
            f"{item['instance']} at {item['at']}s: kept {item['kept']}s"
            + (f", asked {item['asked']}s ({item['why']})" if item.get("asked") is not None else "")
        )
        asked = item["asked"]
        if asked is not None:
            ay = y(float(asked))
            marks.append(
                f'<line x1="{cx - 5:.1f}" y1="{ay:.1f}" x2="{cx + 5:.1f}" y2="{ay:.1f}" '
                'stroke="#111" stroke-width="2"/>'
            )
        # After a refused connection (reset on accept, no request read): a hollow dot.
        paint = (
            f'fill="none" stroke="{colour}"'
            if item.get("after") == "refused"
            else f'fill="{colour}"'
        )
        marks.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" {paint}><title>{label}</title></circle>'
        )
    legend = " ".join(
        f'<tspan fill="{COLOURS[k % len(COLOURS)]}">&#9679; {escape(n)}</tspan>'
        for k, n in enumerate(instances)
    )
    refused = any(i.get("after") == "refused" for i in intervals)
    marks.append(
        f'<text x="{PAD + 4}" y="{PAD - 8}" font-size="10">{legend} '
        "&#8212; asked (shortest allowed)"
        + (" &#9675; after a refused connection (no request read)" if refused else "")
        + "</text>"
    )
    return (
        f'<svg role="img" aria-label="{escape(name)} waits" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(marks)
        + "</svg>"
    )
