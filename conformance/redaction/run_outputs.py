"""Output redaction: no secret in anything a pytest run shows or writes, whatever path wrote it.

The suite's own texts name secrets by placeholders at the source
(``conformance.redaction.placeholders``) and the report writer masks what is left in its files
(``conformance.redaction.report_files``). A run writes much more: a traceback of a fixture that
timed out, with ``-l`` its local variables (a headers dict with the PAT), goes to the terminal, to
JUnit XML, to Allure's ``trace`` and ``message``, through xdist to the controller.
``OutputRedaction`` covers all of it, in every process of the run (controller and each xdist
worker), with one table of spellings (``conformance.redaction.placeholders.SPELLINGS``):

- each test and collection report, as soon as pytest builds it and again just before any reporter
  reads it: its traceback (kept structured, so the terminal still colours it), the captured output
  sections, the user properties; each warning's message and an internal error's traceback;
- Allure's result and container objects, just before they are written;
- pytest's log handlers (``--log-file``, live logs, captured logs);
- once the run has ended (controller or single process), every file the run wrote: the Allure
  results directory, ``--junitxml``, ``--log-file`` and the report directory.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest
from allure_commons import hookimpl, plugin_manager

from conformance.redaction.placeholders import Redactor

Text = Callable[[str], str]
T = TypeVar("T")
LOG_HANDLERS = ("log_file_handler", "log_cli_handler", "report_handler")


# ------------------------------------------------------------------ objects


def scrub(value: T, text: Text) -> T:
    """``value`` with every string in it passed through ``text``: lists, dicts and dataclass or
    Allure model objects are changed in place (others may hold them), tuples rebuilt."""
    scrubbed: T = _scrub(value, text, set())
    return scrubbed


def _scrub(value: Any, text: Text, seen: set[int]) -> Any:  # the same kind of value, as scrub
    if isinstance(value, str):
        return text(value)
    if isinstance(value, bytes | int | float | bool) or value is None or id(value) in seen:
        return value
    seen.add(id(value))
    if isinstance(value, list):
        value[:] = [_scrub(item, text, seen) for item in value]
    elif isinstance(value, tuple):
        items = [_scrub(item, text, seen) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    elif isinstance(value, dict):
        pairs = [(_scrub(k, text, seen), _scrub(v, text, seen)) for k, v in value.items()]
        value.clear()
        value.update(pairs)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if hasattr(value, field.name):
                new = _scrub(getattr(value, field.name), text, seen)
                object.__setattr__(value, field.name, new)
    elif type(value).__module__.startswith("allure_commons.model"):
        for name, item in vars(value).items():
            setattr(value, name, _scrub(item, text, seen))
    return value


def redact_report(report: pytest.TestReport | pytest.CollectReport, text: Text) -> None:
    """Redact a report in place: traceback, captured sections, user properties."""
    if report.longrepr is not None:
        report.longrepr = scrub(report.longrepr, text)
        rendered = report.longreprtext
        if text(rendered) != rendered:  # a part the walk did not reach: keep the text only
            report.longrepr = text(rendered)
    report.sections = [(text(title), text(content)) for title, content in report.sections]
    if isinstance(report, pytest.TestReport):
        report.user_properties = scrub(list(report.user_properties), text)


# ------------------------------------------------------------------ logs and files


class RedactingFormatter(logging.Formatter):
    """Formats as ``inner`` does, then redacts the whole line (message, arguments, traceback)."""

    def __init__(self, inner: logging.Formatter | None, text: Text) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()
        self.redact = text

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(self.inner.format(record))


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_symlink():
            continue
        if path.is_dir():
            yield from _files(sorted(path.iterdir()))
        elif path.is_file():
            yield path


def redact_files(paths: Iterable[Path], redactor: Redactor) -> list[Path]:
    """Rewrite every file under ``paths`` (files or directories) that holds a secret; return
    those rewritten. Each rewrite replaces the file atomically."""
    changed: list[Path] = []
    for path in _files(paths):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        clean = redactor.binary(data)
        if clean == data:
            continue
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".redacting-")
        with os.fdopen(handle, "wb") as out:
            out.write(clean)
        os.replace(temporary, path)
        changed.append(path)
    return changed


# ------------------------------------------------------------------ the pytest plugin


class OutputRedaction:
    """Registered by ``conformance.run.plugin`` in every process of a run; secrets are added as they
    become known (the profile at start-up, an embedded server's when it starts)."""

    def __init__(self, config: pytest.Config, *, final_pass: bool) -> None:
        self.config = config
        self.redactor = Redactor()
        self.final_pass = final_pass
        self.extra_paths: list[Path] = []  # further files or directories the run wrote
        self._allure: object | None = None

    def add(self, secrets: Mapping[str, str]) -> None:
        """Secret value -> the placeholder shown in its place."""
        for value, name in secrets.items():
            self.redactor.add(value, name)

    def text(self, value: str) -> str:
        return self.redactor.text(value)

    # -- reports: right after pytest builds them (innermost), so Allure's trace, the conformance
    # record and every other makereport wrapper read the redacted text ...

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_makereport(
        self,
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if self.redactor.known:
            redact_report(report, self.text)
        return report

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_make_collect_report(
        self,
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if self.redactor.known:
            redact_report(report, self.text)
        return report

    # ... and again before anyone logs them (terminal, JUnit XML, xdist), after every wrapper
    # that added to them (user properties of the fuzz stage).

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        if self.redactor.known:
            redact_report(report, self.text)
        return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collectreport(self, report: pytest.CollectReport) -> Generator[None, None, None]:
        if self.redactor.known:
            redact_report(report, self.text)
        return (yield)

    # -- warnings (the terminal's summary prints each message)

    @pytest.hookimpl(tryfirst=True)  # a historic hook: no wrapper, but before the terminal's
    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage) -> None:
        text = str(warning_message.message)
        if self.redactor.known and self.text(text) != text:
            warning_message.message = Warning(self.text(text))

    @pytest.hookimpl(tryfirst=True)  # before the terminal prints it (or the stderr fallback)
    def pytest_internalerror(self, excrepr: object) -> None:
        if self.redactor.known:
            scrub(excrepr, self.text)

    # -- logs and Allure objects

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        logging_plugin = session.config.pluginmanager.get_plugin("logging-plugin")
        for name in LOG_HANDLERS:
            handler = getattr(logging_plugin, name, None)
            if isinstance(handler, logging.Handler):
                handler.setFormatter(RedactingFormatter(handler.formatter, self.text))
        self._allure = _register_allure_scrubber(self.text)

    # -- the last pass, once every process has written everything

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._allure is not None:
            _unregister_allure_scrubber(self._allure)
            self._allure = None
        if self.final_pass and self.redactor.known:
            redact_files(self.written_paths(), self.redactor)

    def written_paths(self) -> list[Path]:
        """Every file or directory this run wrote outputs to (those that exist)."""
        option = self.config.option
        named = [
            getattr(option, "allure_report_dir", None),
            getattr(option, "xmlpath", None),
            getattr(option, "log_file", None) or self.config.getini("log_file") or None,
        ]
        paths = [Path(str(p)) for p in named if p] + self.extra_paths
        return [path for path in dict.fromkeys(paths) if path.exists()]


def _register_allure_scrubber(text: Text) -> object:
    """Redact Allure's test results and containers before its file logger writes them (they hold
    the ``message`` Allure reads from the exception itself)."""

    class AllureScrubber:
        @hookimpl(tryfirst=True)
        def report_result(self, result: object) -> None:
            scrub(result, text)

        @hookimpl(tryfirst=True)
        def report_container(self, container: object) -> None:
            scrub(container, text)

    scrubber = AllureScrubber()
    plugin_manager.register(scrubber)
    return scrubber


def _unregister_allure_scrubber(scrubber: object) -> None:
    plugin_manager.unregister(scrubber)
