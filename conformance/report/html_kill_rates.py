"""The kill rates in conformance.html's requirement view: under each requirement, the statements
of the specification it judges, each with its kill rate (``catalogue/kill_rates.py``)."""

from __future__ import annotations

from html import escape

from conformance.catalogue.kill_rates import load_kill_rates

CSS = """
ul.judges { list-style: none; margin: .2rem 0 0; padding: 0; color: var(--muted);
  font-size: 12px; }
.kill { font-weight: 600; color: var(--fg); white-space: nowrap; }
.kill.weak { color: #9a3412; }
"""

TITLE = "Kill rate: faults caught exactly / faults that break the statement"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def judges(requirement_id: str) -> str:
    """The statements the requirement judges, each with its kill rate: of the catalogued
    one-defect faults that break it, how many the kit catches exactly ("" when it judges none:
    a convention, a declared objective, the kit's own rule)."""
    items = "".join(
        f'<li data-statement="{_e(s.id)}"><strong>{_e(s.id)}</strong> {_e(s.words)}: '
        f'<span class="kill{" weak" if s.caught < s.faults else ""}" data-kill-rate='
        f'"{_e(s.figure)}">kill rate {_e(s.figure)}</span></li>'
        for s in load_kill_rates().of(requirement_id)
    )
    return f'<ul class="judges" title="{_e(TITLE)}">{items}</ul>' if items else ""


def lead() -> str:
    """What the kill rates under each requirement mean, and where their figures come from."""
    rates = load_kill_rates()
    how = rates.how.replace("`", "")
    return (
        f'<p class="kill-rates" data-source="{_e(rates.source)}">Under each requirement, the '
        "statements of the specification it judges, each with its kill rate: of the kit's "
        "catalogued one-defect faults that break the statement, how many the kit catches "
        f"exactly. Figures of this kit version, {_e(how)}.</p>"
    )
