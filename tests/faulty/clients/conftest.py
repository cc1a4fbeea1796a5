"""Prints the client mutation score after the faulty-client catalogue ran: faults caught with
exactly their declared set over faults run (and the correct variants passed)."""

from __future__ import annotations

from typing import Any

import pytest

PROPERTY = "client_fault"
_RESULTS: dict[str, dict[str, Any]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name == PROPERTY and isinstance(value, dict):
            _RESULTS[str(value["name"])] = value


def pytest_terminal_summary(terminalreporter: Any) -> None:
    faults = [v for v in _RESULTS.values() if v["fault"]]
    correct = [v for v in _RESULTS.values() if not v["fault"]]
    if not _RESULTS:
        return
    caught = sum(1 for v in faults if v["exact"])
    passed = sum(1 for v in correct if v["exact"])
    missed = sorted(v["name"] for v in _RESULTS.values() if not v["exact"])
    terminalreporter.write_sep(
        "=",
        f"client mutation score: faults caught exactly {caught}/{len(faults)}; "
        f"correct variants passed {passed}/{len(correct)}"
        + (f"; mismatches: {', '.join(missed)}" if missed else ""),
    )
