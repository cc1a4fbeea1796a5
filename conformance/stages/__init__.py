"""The stage registry: every stage a run can have, in running order, and look-ups over them.

A new stage is one package under ``conformance/stages/`` (declaring ``STAGE``) plus one line in
``REGISTRY``. ``cli.py``, ``plugin.py``, ``outcomes.py`` and the reports iterate over it.
"""

from __future__ import annotations

from collections.abc import Iterable

from conformance.catalogue.requirements import load_catalogue
from conformance.stages.client import STAGE as CLIENT
from conformance.stages.declaration import STAGE_PROPERTY, Stage
from conformance.stages.fuzz import STAGE as FUZZ
from conformance.stages.load import STAGE as LOAD
from conformance.stages.scenarios import STAGE as SCENARIOS

__all__ = [
    "CUSTOM",
    "REGISTRY",
    "STAGE_PROPERTY",
    "Stage",
    "by_name",
    "named",
    "of_module",
    "scope",
]

REGISTRY: tuple[Stage, ...] = (
    SCENARIOS,
    FUZZ,
    LOAD,
    CLIENT,
)

# The stage of a requirement-marked test outside every stage's package (a user's own tests run
# with the plugin): it answers for its own requirements only, like any stage.
CUSTOM = "custom"


def by_name() -> dict[str, Stage]:
    return {stage.name: stage for stage in REGISTRY}


def named(name: str) -> Stage | None:
    return by_name().get(name)


def of_module(module: str) -> str:
    """The name of the stage a test module belongs to (``CUSTOM`` when none)."""
    for stage in REGISTRY:
        if stage.owns(module):
            return stage.name
    return CUSTOM


def default_scope() -> frozenset[str]:
    """What a stage without a narrower scope (scenarios) answers for: every server rule that no
    other stage owns (the catalogue's ``stage`` field names the owner)."""

    return frozenset(r.id for r in load_catalogue() if r.checkable)


def scope(ran: Iterable[str]) -> frozenset[str] | None:
    """The requirements the stages that ran answer for; None: ``default_scope()``.

    A stage without a narrower scope (scenarios) answers for the default scope, so does a run in
    which no test ran (nothing is left out of scope by accident); tests of no stage answer for
    themselves.
    """
    names = set(ran) - {CUSTOM}
    if not names:
        return None
    ids: set[str] = set()
    for name in names:
        stage = named(name)
        if stage is None:
            return None
        ids |= default_scope() if stage.requirements is None else stage.requirements()
    return frozenset(ids)
