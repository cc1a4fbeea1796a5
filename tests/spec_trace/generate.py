"""Write ``docs/trace.md`` and ``conformance/catalogue/kill_rates.json``:
``python tests/spec_trace/generate.py [--record FILE]`` (FILE: ``conformance selftest --record``;
without it the figures are the catalogues' declarations)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
if str(TESTS.parent) not in sys.path:
    sys.path.insert(0, str(TESTS.parent))

from spec_trace.figures import KILL_RATES, Source, dumped, kill_rates  # noqa: E402
from spec_trace.render import render  # noqa: E402
from spec_trace.trace import (  # noqa: E402
    ROOT,
    faults,
    rows,
    variants,
)

DOC = TESTS.parent / "docs" / "trace.md"


def generate(source: Source) -> tuple[str, str]:
    """The trace and the kill-rate data file, from this source of figures."""
    measured = source.measured()
    built = rows(measured)
    how = source.sentence(faults(measured), variants(measured))
    return render(built, how), dumped(kill_rates(built, source, how))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="a conformance selftest --record file: the kill rates measured by that run",
    )
    options = parser.parse_args(argv)
    source = Source(options.record)
    if source.record is not None and not source.record.resolve().is_relative_to(ROOT):
        parser.error(
            f"{source.record} is outside the checkout: keep the record in it (e.g. "
            "docs/selftest-record.json), as the data file names it and "
            "tests/spec_trace/test_trace.py regenerates from it"
        )
    trace, data = generate(source)
    DOC.write_text(trace, "utf-8")
    KILL_RATES.write_text(data, "utf-8")
    print(f"wrote {DOC} and {KILL_RATES}")


if __name__ == "__main__":
    main()
