"""Requirements no one-defect server can break on its own, each with the reason (as data).

The coverage self-test accepts a server requirement without a fault only when it is listed here.
"""

from __future__ import annotations

NOT_BREAKABLE: dict[str, str] = {
    "AUTH-PAT-ACCEPTED": (
        "Its scenario is a plain create and patch with the owner's token. A server that refuses "
        "the owner's token refuses every management call, so every configuration requirement "
        "fails with it: the defect cannot be isolated to this requirement."
    ),
    "AUTH-EXP-PAT-ACCEPTED": (
        "The owner's token is what every experiment scenario uses; refusing it fails every "
        "experiment requirement (and the suite's pre-flight, which lists experiments with it)."
    ),
    "VER-PATH-V2": (
        "Moving the v2 path segment moves every endpoint: every requirement fails together (and "
        "the pre-flight stops the run), so no one-defect server breaks only this rule."
    ),
}
