"""Allure 3 single-file reports embed a Google Analytics tag: this strips it before sharing.

Usage: ``python -m conformance.report.allure_analytics reports/allure/index.html``
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# The loader tag and the inline ``gtag(...)`` configuration script that follows it.
ANALYTICS = re.compile(
    r"<script[^>]*\bsrc=\"https://www\.googletagmanager\.com/gtag/js[^\"]*\"[^>]*>\s*</script>"
    r"(?:\s*<script>\s*window\.dataLayer.*?</script>)?",
    re.DOTALL,
)


def strip_analytics(html: str) -> tuple[str, int]:
    """The page without its analytics tags, and how many were removed."""
    return ANALYTICS.subn("", html)


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m conformance.report.allure_analytics INDEX.html ...")
        return 2
    for name in paths:
        path = Path(name)
        html, removed = strip_analytics(path.read_text(encoding="utf-8"))
        path.write_text(html, encoding="utf-8")
        left = "googletagmanager" in html or "gtag(" in html
        print(f"{path}: removed {removed} analytics tag(s){'; SOME REMAIN' if left else ''}")
        if left:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
