"""How a failure reads in the terminal: the kit's block (rule, expected, received, reproduce),
not a traceback of the kit's own code.

A target's failure is a ``ConformanceError`` raised by the kit's checks (``expect``,
``violation``): the traceback through them, with their local variables, only says where the kit
noticed, and buries the block in the middle. So by default a failed report of a conformance test
carries the block alone, plus one line saying how many exchanges were recorded. The details come
back on request:

- ``-v``: the block and the transcript of the last exchanges (bodies cut, ``body_cut``);
- ``-vv``, any explicit ``--tb`` other than ``auto``, ``-l`` or ``--full-trace``: pytest's own
  rendering, traceback and transcript, as pytest would show them.

The short summary names each failure in one line, its rule's first line (``condensed``): on a CI
runner pytest would repeat the whole block there, which doubles every failure in a CI log. Many
failures of one cause (a refused set-up step, the same missing header) read as one block with the
count (``fold_cascades``); the reports keep every one.

A failure that is not the target's (the kit itself crashed) keeps its traceback and transcript:
that traceback is what a bug report needs. pytest-xdist's "[gw0] linux -- Python ..." line is
left out of the short block too (``pytest_terminal_summary``).

PYTEST_DONT_REWRITE: the plugin module imports this one before pytest loads it as a plugin (it
holds no assert to rewrite).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence

import pytest

from conformance.errors import ConformanceError, ContractViolation
from conformance.traffic.transcript import Transcript

TRANSCRIPT_SECTION = "conformance transcript (redacted)"
TRANSCRIPT_SHOWN = 6  # the last exchanges shown with -v (the reports keep as many)
_SHORT = "conformance_block"  # a report attribute (it travels through xdist): the block alone


def verbosity(config: pytest.Config) -> int:
    return int(config.get_verbosity())


def wants_traceback(config: pytest.Config) -> bool:
    """pytest's own rendering: ``-vv``, a ``--tb`` style asked for by name, ``-l`` (local
    variables) or ``--full-trace``."""
    option = config.option
    asked = option.tbstyle != "auto" or option.showlocals or option.fulltrace
    return bool(asked) or verbosity(config) >= 2


def condensed(config: pytest.Config) -> None:
    """The short summary's ``FAILED`` lines trimmed to the terminal's width, on a CI runner too
    (pytest prints the whole message there), unless pytest's own rendering is asked for."""
    if not wants_traceback(config):
        config.option.force_short_summary = True


def wants_transcript(config: pytest.Config) -> bool:
    return verbosity(config) >= 1 or wants_traceback(config)


def shape(
    report: pytest.TestReport,
    error: BaseException | None,
    transcript: Transcript | None,
    config: pytest.Config,
    test_ids: Sequence[str] = (),
) -> None:
    """Give a failed report of a conformance test the view the run's options ask for (a violation
    that names no requirement is shown under its test's, ``test_ids``)."""
    if not report.failed:
        return
    exchanges = transcript.exchanges if transcript is not None else []
    ours = isinstance(error, ConformanceError)
    if ours and not wants_traceback(config):
        lines = [error.render(test_ids) if isinstance(error, ContractViolation) else str(error)]
        if exchanges and not wants_transcript(config):
            lines.append(pointer(len(exchanges)))
        report.longrepr = "\n".join(lines)
        setattr(report, _SHORT, True)
    if transcript is not None and exchanges and (wants_transcript(config) or not ours):
        report.sections.append((TRANSCRIPT_SECTION, transcript.render()))


def pointer(count: int) -> str:
    """The line that stands for the transcript in the short view."""
    if count == 1:
        return "(1 exchange recorded: -v shows it, the reports keep it)"
    return f"({count} exchanges recorded: -v shows them, the reports keep them)"


CASCADE = 3  # failures of one cause from this many on read as one block with the count
_NUMBERS = re.compile(r"\b(?:cf-[\w-]+|\d+)\b")  # what differs between failures of one cause


def cause_of(report: pytest.TestReport) -> tuple[str, str] | None:
    """A short block's cause: its rule (ids left out) and what was received, with the names and
    numbers that differ from one failure of the cause to the next made alike."""
    text = str(report.longrepr)
    lines = text.splitlines()
    rule = next((ln.split(": ", 2)[-1] for ln in lines if ln.startswith("Rule broken: ")), None)
    received = next((ln for ln in lines if ln.startswith("Received: ")), "")
    if rule is None:
        return None
    return rule, _NUMBERS.sub("#", received)[:300]


def fold_cascades(failed: list[pytest.TestReport]) -> list[pytest.TestReport]:
    """A cascade is one screen: of the short blocks sharing one cause (``CASCADE`` or more: a
    refused set-up step, the same missing header), the first is shown with the count and the
    other tests' names; the others are taken out of ``failed`` and returned, to be put back
    once the terminal has printed (the reports keep every failure)."""
    groups: dict[tuple[str, str], list[pytest.TestReport]] = {}
    for report in failed:
        cause = cause_of(report) if getattr(report, _SHORT, False) else None
        if cause is not None:
            groups.setdefault(cause, []).append(report)
    hidden: list[pytest.TestReport] = []
    for group in groups.values():
        if len(group) < CASCADE:
            continue
        first, rest = group[0], group[1:]
        names = ", ".join(r.nodeid.rsplit("::", 1)[-1] for r in rest[:5])
        more = f" and {len(rest) - 5} more" if len(rest) > 5 else ""
        first.longrepr = (
            f"{first.longrepr}\n(the same cause failed {len(rest)} more tests: {names}{more}; "
            "the reports keep each)"
        )
        hidden += rest
    failed[:] = [r for r in failed if all(r is not h for h in hidden)]
    return hidden


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter,
) -> Generator[None, None, None]:
    """Before the terminal prints the failures: a short block goes without xdist's worker line
    (``[gw0] linux -- Python ...``, which only the report's ``node`` brings), and a cascade of
    one cause is one block (``fold_cascades``); after: every failure back for the counts."""
    for kind in ("failed", "error"):
        for report in terminalreporter.stats.get(kind, []):
            if getattr(report, _SHORT, False) and hasattr(report, "node"):
                delattr(report, "node")
    failed = terminalreporter.stats.get("failed", [])
    hidden = fold_cascades(failed) if not wants_traceback(terminalreporter.config) else []
    try:
        return (yield)
    finally:
        failed.extend(hidden)
