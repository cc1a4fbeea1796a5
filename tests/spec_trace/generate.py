"""Write ``docs/trace.md``: ``python tests/spec_trace/generate.py``."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
if str(TESTS.parent) not in sys.path:
    sys.path.insert(0, str(TESTS.parent))

DOC = TESTS.parent / "docs" / "trace.md"


def main() -> None:
    from spec_trace.render import render
    from spec_trace.trace import rows

    DOC.write_text(render(rows()), "utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
