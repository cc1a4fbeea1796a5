"""The report writer: renders one ``Report`` to every requested format in the report directory."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from conformance.redaction.report_files import profile_secrets, redact, redact_profile, redact_value
from conformance.report import allure_environment
from conformance.report.model import Report
from conformance.report.stage_text import StageReading, read_stages

DEFAULT_DIR = Path("reports")
Renderer = Callable[[Report], str]
NO_READINGS: Mapping[str, StageReading] = MappingProxyType({})


# format name -> (file name, module, function): each renderer is a pure ``Report -> str``.
FORMATS: dict[str, tuple[str, str, str]] = {
    "json": ("conformance.json", "conformance.report.json_report", "dumps"),
    "md": ("conformance.md", "conformance.report.markdown_report", "render"),
    "html": ("conformance.html", "conformance.report.html_report", "render"),
    "junit": ("junit.xml", "conformance.report.junit_report", "render"),
}


ALLURE = "allure"  # allure-pytest's results, written while the tests run (``--alluredir``)
RUN_FORMATS = (*FORMATS, ALLURE)  # what ``conformance run --formats`` chooses from


def run_formats(text: str) -> tuple[str, ...]:
    """``--formats json,md,...`` as the formats a run writes, in ``RUN_FORMATS`` order; JSON is
    always among them (the record of the run, which every other format renders and ``conformance
    report`` reads back). ValueError names an unknown one."""
    asked = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in asked if name not in RUN_FORMATS]
    if unknown:
        raise ValueError(
            f"unknown report format(s) {', '.join(unknown)}; known: {', '.join(RUN_FORMATS)}"
        )
    return tuple(name for name in RUN_FORMATS if name == "json" or name in asked)


def _renderers(names: Iterable[str]) -> dict[str, tuple[str, Renderer]]:
    """The file name and renderer of each format named, imported lazily (a format not asked for
    costs nothing)."""
    table: dict[str, tuple[str, Renderer]] = {}
    for name in names:
        file_name, module_name, function = FORMATS[name]
        table[name] = (file_name, getattr(importlib.import_module(module_name), function))
    return table


def sanitize(report: Report, secrets: Iterable[str] = ()) -> tuple[Report, list[str]]:
    """The report with its profile's credentials masked and every known secret removed."""
    secret_list = sorted({*secrets, *profile_secrets(report.profile)})
    masked = redact_value(report, secret_list)
    masked = _with_profile(masked, redact_profile(masked.profile))
    return masked, secret_list


def _with_profile(report: Report, profile: dict[str, object]) -> Report:
    return replace(report, profile=profile)


def write_reports(
    report: Report,
    report_dir: Path,
    formats: Iterable[str] = ("json", "md", "html", "junit"),
    secrets: Iterable[str] = (),
    readings: Mapping[str, StageReading] = NO_READINGS,
) -> list[Path]:
    """Write each format's file into ``report_dir`` (created if absent); return the paths written.

    Secrets are removed twice: from the model before rendering, and from each rendered text.
    ``readings`` (stage name -> how the stage reads its details: the registry's stages, handed
    over by the caller) give each stage's own lines and HTML, read from its details once their
    secrets are removed, as a re-render of conformance.json reads them.
    When ``report_dir`` holds Allure results, their environment.properties gets the headline.
    Each file is written whole or not at all (a stop signal or a crash midway leaves the previous
    file, never half of one)."""
    wanted = sorted(dict.fromkeys(f for f in formats if f != ALLURE), key=lambda n: n != "json")
    unknown = [name for name in wanted if name not in FORMATS]  # JSON first, then as asked
    if unknown:
        raise ValueError(
            f"unknown report format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}"
        )
    renderers = _renderers(wanted)
    clean, secret_list = sanitize(report, secrets)
    clean = read_stages(clean, readings)
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name in wanted:
        file_name, render = renderers[name]
        path = report_dir / file_name
        write_whole(path, redact(render(clean), secret_list), "utf-8")
        written.append(path)
    allure_results = report_dir / allure_environment.RESULTS_DIR
    if allure_results.is_dir():  # allure-pytest wrote results: give them the run's headline
        text = redact(allure_environment.render(clean), secret_list)
        write_whole(allure_results / allure_environment.FILE_NAME, text, "ascii")
    return written


def write_whole(path: Path, text: str, encoding: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``."""
    partial = path.with_name(f".{path.name}.part")
    try:
        partial.write_text(text, encoding=encoding)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
