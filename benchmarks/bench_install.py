"""The install with and without the load extra: wall time and site-packages size in fresh venvs.

    python benchmarks/bench_install.py [--rounds N]

Each round makes a fresh venv per form and times ``pip install .`` against ``pip install
'.[load]'`` from this checkout (pip's cache as it is: the first round may fill it), then measures
the venv's site-packages (``du -sk``) and the packages Locust brings. Prints one line per round and
form, then the medians. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORMS = {"base": ".", "load": ".[load]"}


def _site_packages(venv: Path) -> Path:
    return next(venv.glob("lib/python*/site-packages"))


def _kib(path: Path) -> int:
    out = subprocess.run(["du", "-sk", str(path)], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[0])


def one_install(spec: str, where: Path) -> tuple[float, int, int]:
    """(seconds, site-packages KiB, distributions installed) for one fresh venv."""
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-warn-script-location"]
    started = time.monotonic()
    subprocess.run([*pip, spec], check=True, cwd=ROOT, capture_output=True)
    seconds = time.monotonic() - started
    site = _site_packages(venv)
    distributions = len(list(site.glob("*.dist-info")))
    return seconds, _kib(site), distributions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    options = parser.parse_args(argv)
    results: dict[str, list[tuple[float, int, int]]] = {form: [] for form in FORMS}
    for round_number in range(1, options.rounds + 1):
        for form, spec in FORMS.items():
            with tempfile.TemporaryDirectory(prefix=f"bench-install-{form}-") as tmp:
                seconds, kib, count = one_install(spec, Path(tmp))
            results[form].append((seconds, kib, count))
            print(
                f"round {round_number} {form:>4}: {seconds:6.1f} s, site-packages "
                f"{kib / 1024:6.1f} MiB, {count} distributions",
                flush=True,
            )
    for form, rows in results.items():
        print(
            f"median {form:>4}: {statistics.median(r[0] for r in rows):6.1f} s, "
            f"{statistics.median(r[1] for r in rows) / 1024:6.1f} MiB, {rows[-1][2]} distributions"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
