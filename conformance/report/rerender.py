"""Re-rendering: the Markdown and HTML reports again from a report directory's conformance.json."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from conformance.errors import UsageError
from conformance.report.json_report import FILE_NAME, ReportJson, from_json
from conformance.report.model import Report
from conformance.report.report_schema import schema_errors
from conformance.report.stage_text import StageReading
from conformance.report.writer import NO_READINGS, write_reports

RERENDERED = ("md", "html")


def load_report(path: Path) -> Report:
    """Read and validate one conformance.json; a missing or invalid file is a usage error."""
    path = Path(path)
    try:
        data: ReportJson = json.loads(path.read_text(encoding="utf-8"))  # checked just below
    except FileNotFoundError:
        raise UsageError(
            f"no report at {path}", "run `conformance run` first, or pass the report's path"
        ) from None
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}", "pass a conformance.json") from None
    errors = schema_errors(data)
    if errors:
        shown = "; ".join(errors[:5])
        raise UsageError(
            f"{path} is not a valid conformance report: {shown}",
            "re-run the suite, or check the file was written by a compatible version",
        )
    return from_json(data)


def report_file(given: str | Path) -> Path:
    """A report's file from what a user gives: the path itself, or DIR/conformance.json."""
    path = Path(given)
    return path / FILE_NAME if path.is_dir() else path


def rerender(
    report_dir: Path,
    formats: tuple[str, ...] = RERENDERED,
    readings: Mapping[str, StageReading] = NO_READINGS,
) -> list[Path]:
    """Write conformance.md and conformance.html next to ``report_dir``/conformance.json, each
    stage read as ``readings`` say (``conformance report`` hands over the registry's stages)."""
    report_dir = Path(report_dir)
    report = load_report(report_dir / FILE_NAME)
    return write_reports(report, report_dir, formats, readings=readings)
