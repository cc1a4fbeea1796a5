"""reports/implementations/: the committed corpus is whole and consistent. Each run's folder holds
a valid conformance.json, its conformance.md and its badge (nothing else: no Allure results, no
HTML), the
matrix is what ``conformance matrix`` writes from them with the regenerating script's labels, and
the README's excerpt is taken from it."""

from __future__ import annotations

import runpy
from pathlib import Path

from conformance.report import badge, matrix_markdown
from conformance.report.matrix import build
from conformance.report.rerender import load_report

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "reports" / "implementations"
SCRIPT = runpy.run_path(str(ROOT / "benchmarks" / "regenerate_corpus.py"))
RUNS: dict[str, tuple[str, object]] = SCRIPT["RUNS"]


def test_every_run_has_its_reports_and_nothing_more() -> None:
    folders = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    assert folders == sorted(RUNS)
    for name in RUNS:
        kept = sorted([*SCRIPT["KEPT"], SCRIPT["BADGE"]])
        assert sorted(p.name for p in (CORPUS / name).iterdir()) == kept
        report = load_report(CORPUS / name / "conformance.json")  # valid against the schema
        svg = (CORPUS / name / SCRIPT["BADGE"]).read_text(encoding="utf-8")
        assert svg == badge.render(report)
    assert sorted(p.name for p in CORPUS.iterdir() if p.is_file()) == ["matrix.html", "matrix.md"]


def test_the_matrix_is_the_reports_matrix() -> None:
    reports = [
        (f"{name}/conformance.json", load_report(CORPUS / name / "conformance.json"))
        for name in RUNS
    ]
    matrix = build(reports, [label for label, _ in RUNS.values()])
    assert (CORPUS / "matrix.md").read_text(encoding="utf-8") == matrix_markdown.render(matrix)


def test_the_readme_excerpt_comes_from_the_matrix() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    matrix = (CORPUS / "matrix.md").read_text(encoding="utf-8").splitlines()
    start = readme.index("An excerpt of\n[`reports/implementations/matrix.md`]")
    excerpt = readme[start : readme.index("The file has all", start)]
    table = [line for line in excerpt.splitlines() if line.startswith("|")]
    assert len(table) >= 15, "the column heads and some requirement rows"
    local = [
        line.replace("(reports/implementations/matrix.html#", "(matrix.html#") for line in table
    ]
    assert [line for line in local if line not in matrix] == []
