"""The stage registry: every stage a run can have, in running order, and look-ups over them.

The only place that knows which stages exist. A new stage is its declaration here (a module
defining ``STAGE``), its machinery in one package under ``conformance/stages/``, and one line in
``REGISTRY``; from it the CLI takes
``--stage`` choices, each stage's options and commands, the run plugin registers each stage's
pytest options and plugin, the outcomes take what each stage answers for (the catalogue's ``stages``
field) and the report writer each stage's summary (handed the stages by the run's collector and
``conformance report``: the reports import no stage).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.registry.client import STAGE as CLIENT
from conformance.registry.declaration import Command, Stage
from conformance.registry.fuzz import STAGE as FUZZ
from conformance.registry.load import STAGE as LOAD
from conformance.registry.scenarios import STAGE as SCENARIOS

if TYPE_CHECKING:  # the registry stays light: pytest is not imported for its typing alone
    import pytest

__all__ = [
    "CUSTOM",
    "REGISTRY",
    "Stage",
    "add_pytest_options",
    "answered_by",
    "by_name",
    "collected_by",
    "commands",
    "default_answered",
    "named",
    "of_module",
]

REGISTRY: tuple[Stage, ...] = (
    SCENARIOS,
    FUZZ,
    CLIENT,
    LOAD,
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


def commands() -> tuple[Command, ...]:
    """Every subcommand the stages bring to ``conformance``, in registry order."""
    return tuple(command for stage in REGISTRY for command in stage.commands)


def add_pytest_options(parser: pytest.Parser) -> None:
    """Every stage's options, in every pytest process the suite's plugin is in (they must exist
    before the arguments are parsed, whichever stage the run collects)."""
    for stage in REGISTRY:
        if not stage.options:
            continue
        group = parser.getgroup(f"conformance-{stage.name}", f"RCES conformance: {stage.name}")
        for option in stage.options:
            group.addoption(
                option.flag,
                dest=option.dest,
                type=option.type,
                default=option.default,
                metavar=option.metavar,
                choices=option.choices,
                help=option.help,
            )


def collected_by(args: Sequence[str], invocation_dir: Path) -> list[Stage]:
    """The stages whose tests pytest's arguments reach: a module or package name (``--pyargs``)
    or a path, each the stage's test package, inside it, or around it."""
    reached = [path for path in (_path_of(arg, invocation_dir) for arg in args) if path]
    chosen = []
    for stage in REGISTRY:
        package = _path_of(stage.test_package, invocation_dir)
        if package is not None and any(
            path == package or path in package.parents or package in path.parents
            for path in reached
        ):
            chosen.append(stage)
    return chosen


def _path_of(arg: str, invocation_dir: Path) -> Path | None:
    """Where a pytest argument points: a path, or the file or package of a dotted name."""
    name = arg.split("::")[0]
    path = invocation_dir / name
    if path.exists():
        return path.resolve()
    if "/" in name or name.endswith(".py"):
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    origin = Path(spec.origin).resolve()
    return origin.parent if origin.name == "__init__.py" else origin


def default_answered() -> frozenset[str]:
    """What a run answers for when no stage narrows it: what the scenarios stage answers for."""
    return SCENARIOS.requirements()


def answered_by(ran: Iterable[str]) -> frozenset[str] | None:
    """The requirements the stages that ran answer for; None: ``default_answered()``.

    A run in which no stage's test ran answers for the default set (nothing is left unanswered
    by accident); tests of no stage answer for themselves. (Not ``Requirement.scope``, which is
    core or experiments.)
    """
    names = set(ran) - {CUSTOM}
    if not names:
        return None
    ids: set[str] = set()
    for name in names:
        stage = named(name)
        if stage is None:
            return None
        ids |= stage.requirements()
    return frozenset(ids)
