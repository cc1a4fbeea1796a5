"""Regenerate ``reports/implementations/``: the public corpus of reports, and their matrix.

    python benchmarks/regenerate_corpus.py [--only NAME,...]

Runs every server stage against the reference server (scenarios, fuzz at the smoke tier, load),
the client stage against the reference client, and every server stage against the self-test's
correct-but-different target (``tests/dialect``, served by its own harness, every gap filled
otherwise and declared in its profile). Keeps each run's ``conformance.json`` and
``conformance.md`` under ``reports/implementations/<name>/`` (nothing else: no Allure results, no
HTML), writes each one's ``badge.svg`` (``conformance badge``), then the matrix over all of them
(``matrix.html``, ``matrix.md``) with ``conformance matrix``. ``--only`` re-runs some and keeps
the others' last reports (``--only ''``: none, the badges and the matrix only). A run that ends
not conformant still keeps its report: the corpus shows what was found.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "reports" / "implementations"
KEPT = ("conformance.json", "conformance.md")
BADGE = "badge.svg"  # written from the kept report
LOAD_WORKERS = "2"


def _conformance(*args: str) -> Callable[[Path], None]:
    """A run of the ``conformance`` command writing its reports into the given directory."""

    def run(report_dir: Path) -> None:
        command = [sys.executable, "-m", "conformance.cli", *args, "--report-dir", str(report_dir)]
        subprocess.run([*command, "--quiet"], cwd=ROOT, check=False)

    return run


def _dialect(stage: tuple[str, ...], objectives: bool = False) -> Callable[[Path], None]:
    """A run against the dialect, served by its harness (tests/dialect); ``objectives``: with
    the load objectives its own tests declare (``dialect.choices.LOAD_OBJECTIVES``)."""

    def run(report_dir: Path) -> None:
        sys.path.insert(0, str(ROOT / "tests"))
        from dialect.choices import LOAD_OBJECTIVES  # the project's own tests: imported here only
        from dialect.harness import certify

        workdir = report_dir.parent / f"{report_dir.name}-work"
        every = ("--formats", "json,md,html,junit")  # the harness writes JSON alone otherwise
        certify(workdir, (*stage, *every), overrides=LOAD_OBJECTIVES if objectives else None)
        shutil.copytree(workdir / "report", report_dir, dirs_exist_ok=True)

    return run


# name -> (column label, the run). The order is the matrix's.
RUNS: dict[str, tuple[str, Callable[[Path], None]]] = {
    "refserver-scenarios": ("refserver · scenarios", _conformance("run")),
    "refserver-fuzz": (
        "refserver · fuzz (smoke)",
        _conformance("run", "--stage", "fuzz", "--tier", "smoke"),
    ),
    "refserver-load": (
        "refserver · load",
        _conformance("run", "--stage", "load", "--load-workers", LOAD_WORKERS),
    ),
    "refclient": ("refclient · client", _conformance("client")),
    "dialect-scenarios": ("dialect · scenarios", _dialect(())),
    "dialect-fuzz": ("dialect · fuzz (smoke)", _dialect(("--stage", "fuzz", "--tier", "smoke"))),
    "dialect-load": (
        "dialect · load",
        _dialect(("--stage", "load", "--load-workers", LOAD_WORKERS), objectives=True),
    ),
}


def regenerate(name: str) -> None:
    label, run = RUNS[name]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"corpus-{name}-") as tmp:
        report_dir = Path(tmp) / "report"
        run(report_dir)
        if not (report_dir / KEPT[0]).exists():
            raise SystemExit(f"regenerate_corpus: {name} wrote no report")
        kept = CORPUS / name
        shutil.rmtree(kept, ignore_errors=True)
        kept.mkdir(parents=True)
        for file_name in KEPT:
            shutil.copy2(report_dir / file_name, kept / file_name)
    print(f"regenerate_corpus: {label}: {time.monotonic() - started:.0f} s", flush=True)


def write_views() -> None:
    """Each run's badge (badge.svg beside its report) and the matrix over every run kept."""
    present = [name for name in RUNS if (CORPUS / name / KEPT[0]).exists()]
    conformance = [sys.executable, "-m", "conformance.cli"]
    for name in present:
        badge = [*conformance, "badge", name, "--output", f"{name}/{BADGE}"]
        subprocess.run(badge, cwd=CORPUS, check=True, stdout=subprocess.DEVNULL)
    labels = [arg for name in present for arg in ("--label", RUNS[name][0])]
    command = [*conformance, "matrix", *present, "--output", "."]
    subprocess.run([*command, *labels], cwd=CORPUS, check=True)  # sources named relatively


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help=f"comma-separated, of: {', '.join(RUNS)}")
    options = parser.parse_args(argv)
    chosen = list(RUNS) if options.only is None else [n for n in options.only.split(",") if n]
    unknown = [name for name in chosen if name not in RUNS]
    if unknown:
        parser.error(f"unknown run(s) {', '.join(unknown)}; known: {', '.join(RUNS)}")
    for name in chosen:
        regenerate(name)
    write_views()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
