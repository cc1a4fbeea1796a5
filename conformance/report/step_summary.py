"""The CI job summary: when ``GITHUB_STEP_SUMMARY`` names a file (GitHub Actions sets it for each
step), a run appends the short form of conformance.md to it: the headline and the failures, not
the whole report. Secrets are removed as from every report file."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from conformance.redaction.report_files import redact
from conformance.report.markdown_report import summary
from conformance.report.model import Report
from conformance.report.writer import sanitize

ENV = "GITHUB_STEP_SUMMARY"


def append(
    report: Report, secrets: Iterable[str] = (), environ: Mapping[str, str] = os.environ
) -> Path | None:
    """Append the run's summary to the file ``GITHUB_STEP_SUMMARY`` names; None when unset."""
    target = environ.get(ENV, "")
    if not target:
        return None
    clean, secret_list = sanitize(report, secrets)
    text = redact(summary(clean), secret_list)
    path = Path(target)
    with path.open("a", encoding="utf-8") as summary_file:
        summary_file.write(text + "\n")
    return path
