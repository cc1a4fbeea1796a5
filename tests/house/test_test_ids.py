"""Every fuzzed operation gets its own test id (pytest 9.2.0 gave them all the same one).

Collects the fuzz stage with ``--collect-only`` in a subprocess (no target is reached: nothing
runs at collection) and fails if two operations share an id or an operation has none.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conformance.contract.document import operations
from conformance.registry.fuzz import pytest_args

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("test_fuzz", "test_fuzz_credentials")


@pytest.fixture(scope="module")
def collected() -> list[str]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *pytest_args("smoke", 1),
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return [line.strip() for line in result.stdout.splitlines() if "::" in line]


@pytest.mark.parametrize("family", FAMILIES)
def test_one_distinct_id_per_operation(collected: list[str], family: str) -> None:
    ids = [line for line in collected if line.split("::", 1)[1].startswith(f"{family}[")]
    labels = [f"{op.method} {op.path}" for op in operations()]
    assert len(ids) == len(set(ids)), f"duplicate {family} test ids: {sorted(ids)}"
    assert len(ids) == len(labels), f"{family}: {len(ids)} items for {len(labels)} operations"
    for label in labels:
        assert any(f"[{label}]" in test_id for test_id in ids), f"no {family} item for {label}"


def test_stateful_scenarios_are_collected(collected: list[str]) -> None:
    assert any("test_fuzz_stateful" in line for line in collected)
