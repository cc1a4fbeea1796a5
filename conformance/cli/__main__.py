"""``python -m conformance.cli``: the ``conformance`` command, as the installed script runs it."""

import sys

from conformance.cli import main

sys.exit(main())
