"""Certify one variant as a user would: serve it over the reference app, write the base profile
(the reference's own without ``conventions: production``) with its declarations over it, run
``conformance run`` narrowed to its selection in a child process, and read the report."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from dialect.harness import Certified
from faulty.asgi import FaultyApp

from refserver.runner import start_server
from tests.support import suite_run
from tests.support.profiles import merged
from variants.variant import Variant


def base_profile(reference: dict[str, Any]) -> dict[str, Any]:
    """The reference's written profile without ``conventions``: every key it leaves unwritten
    is a production convention, judged at the drop-in level only."""
    data = dict(reference)
    data.pop("conventions", None)
    return data


def without(data: dict[str, Any], dotted: str) -> None:
    """``data`` with one dotted key left unwritten (in place)."""
    *parents, last = dotted.split(".")
    node: Any = data
    for part in parents:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    if isinstance(node, dict):
        node.pop(last, None)


def write_profile(
    path: Path,
    declare: dict[str, Any],
    left_out: frozenset[str],
    issues: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> None:
    """The base profile, ``left_out`` keys unwritten (an undeclared change: its convention
    applies), ``declare`` written over it, then what the variant issues (``issues``)."""
    reference = yaml.safe_load(path.read_text(encoding="utf-8"))
    data = base_profile(reference)
    for dotted in left_out:
        without(data, dotted)
    data = merged(data, declare)
    if issues is not None:
        data = issues(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def differences(report: dict[str, Any]) -> frozenset[str]:
    """The profile keys of the drop-in differences a report lists."""
    return frozenset(str(d.get("key")) for d in report.get("differences", []))


def certify(variant: Variant, workdir: Path, stage: tuple[str, ...] = ()) -> Certified:
    workdir.mkdir(parents=True, exist_ok=True)
    profile = workdir / "profile.yaml"
    started = time.monotonic()
    server = start_server(
        workdir / "refserver.db",
        profile_path=profile,
        wrap=lambda app: FaultyApp(app, variant.make()),
        **variant.settings,
    )
    try:
        write_profile(profile, variant.declare, variant.differences, variant.issues)
        # The selection names scenario requirements; another stage runs whole (its own ids).
        chosen = variant.selection() if stage in ((), ("--stage", "scenarios")) else None
        selected = ("--requirements", ",".join(sorted(chosen))) if chosen else ()
        report, output = suite_run.certify(
            server.base_url,
            profile,
            workdir / "report",
            (*selected, *stage, "--workers", "0"),
            cwd=workdir,
        )
    finally:
        server.stop()
    return Certified(report, output, time.monotonic() - started)
