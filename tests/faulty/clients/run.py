"""``python tests/faulty/clients/run.py <variant>``: the reference client with one patch applied
(``patches.PATCHES``), configured by the same ``RCES_*`` variables. Runs from a source checkout."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def main(argv: list[str]) -> int:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.faulty.clients.patches import PATCHES

    if len(argv) != 1 or argv[0] not in PATCHES:
        print(f"usage: run.py <{'|'.join(PATCHES)}>", file=sys.stderr)
        return 2
    PATCHES[argv[0]]()
    import refclient.cli

    return refclient.cli.main([])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
