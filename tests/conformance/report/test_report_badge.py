"""conformance badge: the SVG read back (XML parse, text, colour) at both levels."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.report.badge import COLOURS, render
from conformance.report.json_report import dumps
from conformance.report.model import Report
from conformance.verdict.run_verdict import Level, Verdict
from tests.support import sample_reports as samples

SVG = "{http://www.w3.org/2000/svg}"


def read_back(svg: str) -> tuple[str, str, str, float]:
    """(label, message, message colour, width) from a badge's SVG."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = {t.get("class"): t.text or "" for t in root.iter(f"{SVG}text")}
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("x") is not None]
    assert len(rects) == 1, "one coloured right half"
    return texts["label"], texts["message"], rects[0].get("fill", ""), float(root.get("width", 0))


@pytest.mark.parametrize(
    ("build", "message", "verdict"),
    [
        (samples.conformant, "conformant · 9/9 pass", Verdict.CONFORMANT),
        (
            samples.with_exceptions,
            "conformant with exceptions · 5/9 pass",
            Verdict.CONFORMANT_WITH_EXCEPTIONS,
        ),
        (samples.incomplete, "incomplete · 6/9 pass", Verdict.INCOMPLETE),
        (samples.not_conformant, "not conformant · 5/9 pass", Verdict.NOT_CONFORMANT),
    ],
)
def test_the_interface_badge_gives_the_verdict_and_the_passes(
    build: Callable[[], Report], message: str, verdict: Verdict
) -> None:
    report = build()
    label, text, colour, width = read_back(render(report))
    assert (label, text, colour) == ("conformance", message, COLOURS[verdict])
    assert width > 8 * len(label + text) * 0.5  # room for both halves


def test_the_drop_in_badge_gives_the_second_level() -> None:
    report = samples.drop_in_differs()
    assert read_back(render(report))[1:3] == ("conformant · 9/9 pass", COLOURS[Verdict.CONFORMANT])
    label, text, colour, _ = read_back(render(report, Level.DROP_IN))
    assert (label, text) == ("drop-in", "not compatible · 2 conventions differ")
    assert colour == COLOURS[Verdict.NOT_CONFORMANT]
    label, text, colour, _ = read_back(render(samples.conformant(), Level.DROP_IN))
    assert (text, colour) == ("compatible · 9/9 pass", COLOURS[Verdict.CONFORMANT])


def test_colours_differ_by_verdict() -> None:
    assert len(set(COLOURS.values())) == len(Verdict)


def test_the_command_writes_the_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "conformance.json").write_text(dumps(samples.drop_in_differs()), encoding="utf-8")
    out = tmp_path / "badges" / "drop-in.svg"
    assert main(["badge", str(folder), "--output", str(out), "--level", "drop-in"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert read_back(out.read_text(encoding="utf-8"))[0] == "drop-in"
    assert main(["badge", str(tmp_path / "none.json"), "--output", str(out)]) == 2
