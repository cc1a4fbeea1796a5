"""Reading a report back in a test: the ``conformance.json`` a run wrote, and each requirement's
outcome by id. The one way tests read outcomes from a report."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

REPORT_FILE = "conformance.json"


def written_report(report_dir: Path) -> dict[str, Any]:
    """The ``conformance.json`` a run wrote into ``report_dir`` (empty: none was written)."""
    path = report_dir / REPORT_FILE
    if not path.exists():
        return {}
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


def requirement_outcomes(
    report: Mapping[str, Any], only: Collection[str] | None = None
) -> dict[str, str]:
    """Each requirement's outcome by id (``only``: just those ids; no report: none)."""
    requirements = report.get("requirements", [])
    assert isinstance(requirements, list), f"requirements is not a list: {requirements!r}"
    return {r["id"]: r["outcome"] for r in requirements if only is None or r["id"] in only}


def written_outcomes(report_dir: Path) -> dict[str, str]:
    """The outcomes of the report a run wrote into ``report_dir`` (none written: none)."""
    return requirement_outcomes(written_report(report_dir))
