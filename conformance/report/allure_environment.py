"""The Allure results' environment.properties: the run's headline on the Allure report's front page.

Allure has no verdict of its own (it counts tests, and shows a not-measured test as a mere skip),
so the writer puts the measured share, the verdict and what decided it into the Environment
widget, in Java properties syntax kept plain for simple readers: keys without spaces, values
escaped only where they must be (backslash, line breaks, anything not ASCII as ``\\uXXXX``).
"""

from __future__ import annotations

from conformance.report.headline import decided_by, measured_share
from conformance.report.levels import levels_sentence
from conformance.report.model import Report

FILE_NAME = "environment.properties"
RESULTS_DIR = "allure-results"  # where ``conformance run`` points allure-pytest


def _escape(text: str) -> str:
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 0x20 or ord(char) > 0x7E:
            out.extend(f"\\u{unit:04x}" for unit in _utf16(char))
        else:
            out.append(char)
    return "".join(out)


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-be")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def render(report: Report) -> str:
    """The properties, headline first: measured share, verdict, what decided it, the target."""
    pairs = (
        ("Measured", measured_share(report)),
        ("Verdict", report.verdict.value),
        ("Decided.by", decided_by(report)),
        ("Levels", levels_sentence(report)),
        ("Target", report.target_url),
        ("Suite.version", report.suite_version),
        ("Contract.sha256", report.contract_sha256),
    )
    return "".join(f"{key} = {_escape(value)}\n" for key, value in pairs)
