"""``python -m refclient``: poll the service named by the ``RCES_*`` environment variables."""

from __future__ import annotations

import sys

from refclient.cli import main

sys.exit(main())
