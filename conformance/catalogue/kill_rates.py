"""How hard each requirement is checked: the statements it judges and their kill rates.

``statements.yaml`` says which statements of the specification (S1 to S139) each requirement
judges; ``kill_rates.json``, written by ``tests/spec_trace/generate.py`` beside ``docs/trace.md``
and kept current by ``tests/spec_trace/test_trace.py``, gives each statement's faults caught
exactly and faults that break it, and where the figures come from (the catalogues' declarations
or a recorded ``conformance selftest`` run). ``load_kill_rates()`` joins the two, shipped inside
the package, for the reports (the HTML report's requirement view).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import yaml

STATEMENTS_FILE = "statements.yaml"
KILL_RATES_FILE = "kill_rates.json"


@dataclass(frozen=True)
class StatementRate:
    """One statement of the specification and its kill rate."""

    id: str  # "S1"
    words: str  # the statement in the catalogue's short words
    caught: int  # faults caught exactly
    faults: int  # faults that break it
    unobservable: bool = False  # nothing can observe it through the interface

    @property
    def figure(self) -> str:
        return "n/a" if self.unobservable else f"{self.caught}/{self.faults}"


@dataclass(frozen=True)
class KillRates:
    """Each requirement's statements with their kill rates, and the figures' source."""

    source: str  # "declared" (the catalogues' declarations) or "recorded" (a selftest run)
    how: str  # the sentence saying so, as docs/trace.md gives it
    by_requirement: Mapping[str, tuple[StatementRate, ...]]

    def of(self, requirement_id: str) -> tuple[StatementRate, ...]:
        """The statements this requirement judges, in the specification's order (none: it rests
        on a convention, a declared objective or the kit's own rule)."""
        return self.by_requirement.get(requirement_id, ())


def _read(name: str) -> str:
    return resources.files("conformance.catalogue").joinpath(name).read_text(encoding="utf-8")


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


@functools.cache
def load_kill_rates() -> KillRates:
    """The figures shipped inside the package, read once."""
    figures = json.loads(_read(KILL_RATES_FILE))
    rates = figures.get("statements", {})
    by_requirement: dict[str, list[StatementRate]] = {}
    for entry in yaml.safe_load(_read(STATEMENTS_FILE))["statements"]:
        rate = rates.get(str(entry["id"]), {})
        statement = StatementRate(
            id=str(entry["id"]),
            words=str(entry["statement"]),
            caught=_int(rate.get("caught")),
            faults=_int(rate.get("faults")),
            unobservable=bool(rate.get("unobservable")),
        )
        for requirement in entry.get("requirements") or []:
            by_requirement.setdefault(str(requirement), []).append(statement)
    return KillRates(
        source=str(figures.get("source", "declared")),
        how=str(figures.get("how", "")),
        by_requirement={k: tuple(v) for k, v in by_requirement.items()},
    )
