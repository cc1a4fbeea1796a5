"""Runs the fuzz stage in a pytest subprocess against a real server and reads its report.

Used by the end-to-end tests of ``tests/conformance/stages/fuzz``: ``serve(tmp_path, wrap=...)``
starts the reference server (optionally wrapped in a one-defect ASGI middleware) on 127.0.0.1:0, and
``run_stage(...)`` runs ``conformance.registry.fuzz.pytest_args`` against it and returns the parsed
``conformance.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.registry.fuzz import pytest_args

ROOT = Path(__file__).resolve().parents[4]


@dataclass
class StageResult:
    returncode: int
    output: str
    report: dict[str, Any]

    def requirement(self, rid: str) -> dict[str, Any]:
        return next(r for r in self.report["requirements"] if r["id"] == rid)

    def fuzz_tests(self) -> list[dict[str, Any]]:
        return [t for t in self.report.get("tests", []) if t["stage"] == "fuzz"]


@contextmanager
def serve(
    tmp_path: Path, wrap: Callable[[Any], Any] | None = None, **settings: Any
) -> Iterator[Any]:
    from refserver.runner import start_server

    server = start_server(tmp_path / "fuzz.db", wrap=wrap, **settings)
    try:
        yield server
    finally:
        server.stop()


def run_stage(
    server: Any,
    report_dir: Path,
    tier: str = "smoke",
    seed: int = 20261122,
    extra: Sequence[str] = (),
    timeout: float = 600,
) -> StageResult:
    command = [
        sys.executable,
        "-m",
        "pytest",
        *pytest_args(tier, seed),
        "--base-url",
        str(server.base_url),
        "--target-profile",
        str(server.profile_path),
        "--report-dir",
        str(report_dir),
        "-q",
        "-p",
        "no:cacheprovider",
        *extra,
    ]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = result.stdout[-6000:] + result.stderr[-3000:]
    path = report_dir / "conformance.json"
    report = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    return StageResult(result.returncode, output, report)
