"""The stage registry owns the stages: CLI commands, options, plugin registration, scope and
summary come from one declaration per stage (``conformance/registry/<stage>.py``), its machinery
lives in its package under ``conformance/stages/`` and its commands in ``conformance/cli/``, and no
other module names a stage."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import conformance
from conformance import cli, registry
from conformance.catalogue.requirements import load_catalogue
from conformance.errors import UsageError
from conformance.registry import (
    CUSTOM,
    REGISTRY,
    Stage,
    answered_by,
    by_name,
    collected_by,
    commands,
    default_answered,
    of_module,
)
from conformance.run import launch
from conformance.run.run_report import selected_requirements
from conformance.session import wire
from conformance.stages.client.scenarios import requirement_ids as client_scenario_ids
from conformance.stages.fuzz.plugin import stage_requirements

PACKAGE = Path(conformance.__file__).parent
STAGES_DIR = PACKAGE / "stages"
REGISTRY_DIR = Path(registry.__file__).parent

# Everything a stage may contribute, by its declaration alone. A new kind of contribution is a
# deliberate change of the registry: add it here and to ARCHITECTURE.md ("Adding a stage").
CONTRIBUTIONS = {
    "name",
    "help",
    "test_package",
    "plugin",
    "subject",
    "in_all",
    "one_process",
    "options",
    "pytest_extra",
    "check_options",
    "commands",
    "merge_details",
    "describe",
    "html",
}
# Modules outside conformance/stages/, the registry and the stages' commands that may spell a
# stage's name, each with its reason; an
# entry that no longer needs it fails too, so the list cannot rot.
SPELLED_ON_PURPOSE = {
    "selftest/sides.py": "its client and load sides are named like the stages whose scope "
    "judges them, and look them up in the registry by that name",
}


def test_every_stage_is_declared_in_the_registry_with_its_package_under_stages() -> None:
    assert [s.name for s in REGISTRY][:2] == ["scenarios", "fuzz"]
    for stage in REGISTRY:
        name = stage.name.replace("-", "_")
        declared = importlib.import_module(f"conformance.registry.{name}")
        assert declared.STAGE is stage, stage.name
        assert (STAGES_DIR / name / "__init__.py").is_file(), stage.name
        assert stage.test_package.startswith(f"conformance.stages.{name}")
        if stage.plugin is not None:
            assert stage.plugin.startswith(f"conformance.stages.{name}.")
        for command in stage.commands:
            assert command.module.startswith("conformance.cli."), command


def test_a_stage_contributes_only_through_its_declaration() -> None:
    assert {field.name for field in dataclasses.fields(Stage)} == CONTRIBUTIONS


def test_a_test_module_belongs_to_the_stage_whose_package_holds_it() -> None:
    assert of_module("conformance.stages.scenarios.test_status") == "scenarios"
    assert of_module("conformance.stages.fuzz.test_fuzz") == "fuzz"
    # no guessing from names: a user's module that merely mentions fuzz is nobody's stage
    assert of_module("my_fuzz_tests.test_x") == CUSTOM
    assert of_module("conformance.stages.scenarios_extra") == CUSTOM


def test_each_stage_answers_for_what_the_catalogue_says_it_judges() -> None:
    catalogue = load_catalogue()
    names = set(by_name())
    assert {stage for r in catalogue for stage in r.stages} <= names
    for stage in REGISTRY:
        assert stage.requirements() == {r.id for r in catalogue if stage.name in r.stages}
    # what each stage's own tables and tests name is exactly its scope in the catalogue
    assert by_name()["fuzz"].requirements() == stage_requirements()
    assert by_name()["client"].requirements() == client_scenario_ids()
    assert by_name()["load"].requirements() == _marked_ids(STAGES_DIR / "load" / "test_load.py")


def _marked_ids(path: Path) -> set[str]:
    ids = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "requirement":
            ids |= {arg.value for arg in node.args if isinstance(arg, ast.Constant)}
    return ids


def test_a_run_of_some_stages_answers_for_their_scopes_together() -> None:
    fuzz = answered_by(["fuzz", "fuzz"])
    assert fuzz == by_name()["fuzz"].requirements() and "ERR-NO-SERVER-ERROR" in fuzz
    every = selected_requirements(None, [])
    # an unlisted method's answer is the fuzz stage's alone (its coverage phase sends them)
    fuzz_alone = {"ERR-405-ALLOW", "ERR-UNLISTED-METHOD-405"}
    both = answered_by(["scenarios", "fuzz"])
    assert both is not None and fuzz_alone <= both and fuzz_alone <= fuzz
    assert both - fuzz_alone == default_answered() == {r.id for r in every}
    with_load = answered_by(["scenarios", "load"])
    assert with_load is not None and "POLL-DECLARED-LATENCY" in with_load - default_answered()
    assert answered_by([]) is None  # nothing ran: nothing is out of scope by accident
    assert answered_by(["a-stage-nobody-knows"]) is None
    assert answered_by([CUSTOM, "fuzz"]) == fuzz  # a user's own tests widen nothing
    scoped = [r.id for r in selected_requirements(None, [], fuzz)]
    assert set(scoped) == fuzz & ({r.id for r in every} | fuzz_alone)
    assert len(scoped) < len(every)
    assert [r.id for r in selected_requirements({"X-1"}, [], fuzz)] == ["X-1"]


def test_details_merge_as_the_stage_declares_else_key_by_key() -> None:
    plain = Stage(name="x", help="", test_package="x")
    assert plain.merged([{"a": 1, "b": 1}, {"b": 2}]) == {"a": 1, "b": 2}
    fuzz = by_name()["fuzz"]
    merged = fuzz.merged(
        [
            {"tier": "smoke", "seed": 1, "cases": 3, "duration_s": 1.0},
            {"tier": "smoke", "seed": 1, "cases": 4, "duration_s": 2.0},
        ]
    )
    assert merged["cases"] == 7 and merged["workers"] == 2 and merged["duration_s"] == 2.0


def _options(*argv: str) -> argparse.Namespace:
    return cli._parser().parse_args(["run", *argv])


def test_the_cli_takes_stage_choices_and_options_from_the_registry() -> None:
    for name in [*by_name(), "all"]:
        assert _options("--stage", name).stage == name
    assert _options().stage == REGISTRY[0].name
    with pytest.raises(SystemExit):
        _options("--stage", "nope")
    options = _options("--stage", "fuzz", "--tier", "pr", "--seed", "7")
    args = launch.pytest_args(options, Path("i.ini"), 0)
    assert args[args.index("--fuzz-tier") + 1] == "pr"
    assert args[args.index("--fuzz-seed") + 1] == "7"
    assert "--assert=plain" in args  # the stage's own extra argument
    assert "--fuzz-max-examples" not in args  # a pytest-only option is not on conformance run
    assert args.count("-p") >= len(launch.BASE_PLUGINS)  # autoloading is off: named plugins
    assert launch.stage_modules("all") == [s.test_package for s in REGISTRY if s.in_all]
    scenarios_args = launch.pytest_args(_options(), Path("i"), 0)
    assert "--fuzz-tier" not in scenarios_args and "--base-url" not in scenarios_args
    # options checked together, before pytest starts
    with pytest.raises(UsageError, match="at least one Locust worker"):
        launch.pytest_args(_options("--stage", "load", "--load-workers", "0"), Path("i"), 0)


def test_stage_commands_are_declared_by_their_stage_and_reach_the_cli() -> None:
    modules = cli.command_modules()
    for command in commands():
        assert modules[command.name] == command.module
    assert not any(m.startswith("conformance.stages") for m in cli.GENERAL_COMMANDS.values())
    names = {action.dest for action in cli._parser()._actions}  # the parser builds
    assert "command" in names


def test_every_stage_plugin_is_registered_one_way_with_options_from_its_declaration() -> None:
    """No ``pytest_plugins`` names a stage plugin and no stage plugin declares its own options:
    the run plugin registers the plugin of each stage a run collects, and every stage's options
    come from its declaration."""
    for stage in REGISTRY:
        if stage.plugin is None:
            continue
        path = PACKAGE.parent / (stage.plugin.replace(".", "/") + ".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hooks = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "pytest_addoption" not in hooks, stage.plugin
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "pytest_plugins" for t in node.targets
            ):
                assert "conformance.stages" not in ast.unparse(node.value), path
    here = Path.cwd()
    assert [s.name for s in collected_by(["conformance.stages.fuzz.test_fuzz"], here)] == ["fuzz"]
    assert [s.name for s in collected_by(["conformance.stages.client"], here)] == ["client"]
    every = collected_by([str(STAGES_DIR)], here)
    assert [s.name for s in every] == [s.name for s in REGISTRY]
    assert collected_by(["tests", "-k", "x", "no.such.module"], here) == []


def test_no_module_outside_the_registry_spells_a_stage() -> None:
    """Outside ``conformance/stages/``, the registry and the stages' own commands: no stage name,
    no module of a stage package, no stage details key but in the wire (its one home); only the
    modules listed with a reason, and each of them still needs it."""
    names = set(by_name())
    own_commands = {command.module for command in commands()}
    offenders: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        module = "conformance." + relative.removesuffix(".py").replace("/", ".")
        if relative.startswith(("stages/", "registry/")) or module in own_commands:
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                continue
            value = node.value
            if (
                value in names
                or (value == wire.DETAILS_KEY and relative != "session/wire.py")
                or (value.startswith("conformance.stages.") and value != "conformance.stages")
            ):
                offenders.setdefault(relative, []).append(value)
    unexplained = {k: v for k, v in offenders.items() if k not in SPELLED_ON_PURPOSE}
    assert unexplained == {}
    assert set(SPELLED_ON_PURPOSE) <= set(offenders), "an exception no longer needed"


def test_the_stage_declarations_import_nothing_heavy() -> None:
    """One interpreter imports the registry, so every stage's declaration at once."""
    code = (
        "import sys, conformance.registry; "
        "print(','.join(m for m in ('schemathesis', 'locust', 'hypothesis', 'gevent') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
