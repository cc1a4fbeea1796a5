"""The client stage as the registry sees it: one package, subject client, not in --stage all,
answering for the client requirements only; its details merge across tests, read as summary
lines and draw one inline SVG per timing scenario (no script)."""

from __future__ import annotations

import argparse

from conformance import cli
from conformance.catalogue.requirements import load_catalogue
from conformance.registry import named, of_module
from conformance.stages.client.scenarios import SCENARIOS, requirement_ids


def test_the_stage_is_registered_for_client_requirements() -> None:
    stage = named("client")
    assert stage is not None and stage.subject == "client" and not stage.in_all
    assert of_module("conformance.stages.client.test_client") == "client"
    assert stage.requirements is not None
    ids = stage.requirements()
    clients = {r.id for r in load_catalogue() if r.subject == "client"}
    assert ids == clients == requirement_ids()
    assert {rid for s in SCENARIOS for rid in s.requirement_ids} == ids


def test_run_options_become_pytest_arguments() -> None:
    stage = named("client")
    assert stage is not None and stage.pytest_args is not None
    options = argparse.Namespace(client_command="./harness --x", client_time_scale=0.05)
    assert stage.pytest_args(options) == [
        "--client-command",
        "./harness --x",
        "--client-time-scale",
        "0.05",
    ]
    assert stage.pytest_args(argparse.Namespace()) == []


def test_details_merge_describe_and_draw() -> None:
    stage = named("client")
    assert stage is not None and stage.describe is not None and stage.html is not None
    interval = {"instance": "hint#1", "at": 3.2, "kept": 1.9, "asked": 1.4, "why": "hint"}
    parts = [
        {
            "settings": {"command": "x", "time_scale": 0.02},
            "scenarios": {
                "hint": {
                    "title": "t",
                    "instances": 3,
                    "requests": 40,
                    "seconds": 21.0,
                    "intervals": [interval, {**interval, "at": 5.1, "kept": 2.2}],
                }
            },
        },
        {
            "settings": {"command": "x"},
            "scenarios": {
                "last-hash": {
                    "title": "u",
                    "instances": 1,
                    "requests": 12,
                    "seconds": 9.0,
                }
            },
        },
    ]
    merged = stage.merged(parts)
    assert set(merged["scenarios"]) == {"hint", "last-hash"}
    lines = stage.lines(merged) or []
    assert any("2 scenarios run at once in 21.0s" in line for line in lines)
    assert any("closest wait 1.900s against 1.400s asked" in line for line in lines)
    html = stage.drawn(merged)
    assert html.count("<svg") == 1 and "<script" not in html and "hint#1" in html


def test_conformance_client_takes_the_run_spellings_of_its_options_too() -> None:
    parser = cli._parser()
    short = parser.parse_args(["client", "--command", "./harness", "--time-scale", "0.5"])
    long = parser.parse_args(
        ["client", "--client-command", "./harness", "--client-time-scale", "0.5"]
    )
    run = parser.parse_args(
        ["run", "--stage", "client", "--client-command", "./harness", "--client-time-scale", "0.5"]
    )
    for options in (short, long, run):
        assert (options.client_command, options.client_time_scale) == ("./harness", 0.5)
