"""Golden files: the JSON and Markdown reports of the three sample Reports, byte for byte.

Regenerate after an intended change with ``CONFORMANCE_REGENERATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.registry import by_name
from conformance.report.json_report import dumps
from conformance.report.markdown_report import render as render_markdown
from conformance.report.stage_text import read_stages
from tests.support import sample_reports as samples

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = os.environ.get("CONFORMANCE_REGENERATE_GOLDEN") == "1"


def check_golden(name: str, text: str) -> None:
    """Compare with tests/conformance/report/golden/<name>;
    CONFORMANCE_REGENERATE_GOLDEN=1 rewrites."""
    path = GOLDEN / name
    if REGENERATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run with CONFORMANCE_REGENERATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from its golden file; if the change is intended, "
        "re-run with CONFORMANCE_REGENERATE_GOLDEN=1 and review the diff"
    )


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_json_golden(name: str) -> None:
    check_golden(f"{name}.json", dumps(samples.SAMPLES[name]()))


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_markdown_golden(name: str) -> None:
    """As a run writes it: each stage read as the registry's stage reads its details."""
    report = read_stages(samples.SAMPLES[name](), by_name())
    check_golden(f"{name}.md", render_markdown(report))
