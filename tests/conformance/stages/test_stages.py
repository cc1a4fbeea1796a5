"""The stage registry: one declaration per stage, read by the CLI, the plugin and the reports."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

import conformance
from conformance import cli
from conformance.catalogue.outcomes import selected_requirements
from conformance.stages import CUSTOM, REGISTRY, Stage, by_name, default_scope, of_module, scope
from conformance.stages.fuzz.plugin import stage_requirements

PACKAGE = Path(conformance.__file__).parent


def test_every_stage_is_a_package_under_stages_declaring_itself() -> None:
    assert [s.name for s in REGISTRY][:2] == ["scenarios", "fuzz"]
    for stage in REGISTRY:
        package = PACKAGE / "stages" / stage.name.replace("-", "_")
        assert (package / "__init__.py").is_file(), stage.name
        assert stage.test_package.startswith(f"conformance.stages.{package.name}")


def test_a_test_module_belongs_to_the_stage_whose_package_holds_it() -> None:
    assert of_module("conformance.stages.scenarios.test_status") == "scenarios"
    assert of_module("conformance.stages.fuzz.test_fuzz") == "fuzz"
    # no guessing from names: a user's module that merely mentions fuzz is nobody's stage
    assert of_module("my_fuzz_tests.test_x") == CUSTOM
    assert of_module("conformance.stages.scenarios_extra") == CUSTOM


def test_a_run_of_the_fuzz_stage_alone_answers_for_the_fuzz_stages_requirements() -> None:
    fuzz = scope(["fuzz", "fuzz"])
    assert fuzz == stage_requirements() and "ERR-NO-SERVER-ERROR" in fuzz
    every = selected_requirements(None, [])
    # scenarios answer for every server rule no stage owns alone
    assert scope(["scenarios", "fuzz"]) == default_scope() == {r.id for r in every}
    with_load = scope(["scenarios", "load"])
    assert with_load is not None and "POLL-DECLARED-LATENCY" in with_load - default_scope()
    assert scope([]) is None  # nothing ran: nothing is out of scope by accident
    assert scope(["a-stage-nobody-knows"]) is None
    assert scope([CUSTOM, "fuzz"]) == fuzz  # a user's own tests widen nothing
    scoped = [r.id for r in selected_requirements(None, [], fuzz)]
    assert set(scoped) == fuzz & {r.id for r in every} and len(scoped) < len(every)
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


def test_the_cli_takes_stage_choices_options_and_plugins_from_the_registry() -> None:
    for name in [*by_name(), "all"]:
        assert _options("--stage", name).stage == name
    with pytest.raises(SystemExit):
        _options("--stage", "nope")
    options = _options("--stage", "fuzz", "--tier", "pr", "--seed", "7")
    args = cli.pytest_args(options, "http://x", Path("p.yaml"), Path("i.ini"), 0)
    assert "--fuzz-tier" in args and args[args.index("--fuzz-tier") + 1] == "pr"
    assert args[args.index("--fuzz-seed") + 1] == "7"
    assert cli.stage_plugins("fuzz") is None  # schemathesis registers itself: autoload
    assert cli.stage_plugins("scenarios") == by_name()["scenarios"].plugins
    assert cli.stage_modules("all") == [s.test_package for s in REGISTRY if s.in_all]
    scenarios_args = cli.pytest_args(_options(), "http://x", Path("p"), Path("i"), 0)
    assert "--fuzz-tier" not in scenarios_args


def test_no_module_outside_the_registry_spells_the_stage_property_or_a_stage_table() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "declaration.py" and path.parent.name == "stages":
            continue
        text = path.read_text(encoding="utf-8")
        if '"conformance-stage"' in text:
            offenders.append(str(path.relative_to(PACKAGE)))
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                if names & {"STAGES", "STAGE_PLUGINS", "STAGE_MERGERS"}:
                    offenders.append(f"{path.relative_to(PACKAGE)}: {sorted(names)}")
    assert offenders == []


def test_the_stage_declarations_import_nothing_heavy() -> None:
    """One interpreter imports the registry, so every stage's declaration at once."""
    import subprocess
    import sys

    code = (
        "import sys, conformance.stages; "
        "print(','.join(m for m in ('schemathesis', 'locust', 'hypothesis', 'gevent') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
