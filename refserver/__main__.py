"""``python -m refserver serve ...``: the same as the ``refserver`` script."""

from __future__ import annotations

import sys

from refserver.cli import main

sys.exit(main())
