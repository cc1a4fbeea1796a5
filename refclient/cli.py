"""``python -m refclient`` / ``refclient``: poll until SIGTERM or SIGINT, one log line per poll.

Exit 0 after a clean stop, 1 when the service refuses the client for good (a 4xx), 2 when the
environment is incomplete (see ``refclient.environment``). Logs go to stderr.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from types import FrameType

from refclient.environment import UsageError, launch_from
from refclient.errors import PermanentError
from refclient.sync_poller import Poller
from refclient.version import SDK_VERSION

USAGE = (
    "usage: python -m refclient  (configured by environment: RCES_BASE_URL, RCES_SDK_KEY, "
    "RCES_INSTANCE_ID; optional RCES_ENVIRONMENT, RCES_SCENARIO, RCES_TIME_SCALE, "
    "RCES_HASH_TRANSPORT, RCES_JITTER_READING)"
)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the client; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args:
        print(USAGE, file=sys.stderr)
        return 0 if args in (["-h"], ["--help"]) else 2
    try:
        launch = launch_from(os.environ if environ is None else environ)
    except UsageError as error:
        print(f"refclient: {error}\n{USAGE}", file=sys.stderr)
        return 2
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s refclient %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per poll, ours
    config = launch.config
    logging.getLogger("refclient").info(
        "start %s base_url=%s instance=%s environment=%s scenario=%s time_scale=%g",
        SDK_VERSION,
        config.base_url,
        config.instance_id,
        config.environment,
        launch.scenario or "-",
        config.time_scale,
    )
    poller = Poller(config)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        poller.stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        poller.run_forever()
    except PermanentError as error:
        print(f"refclient: {error}", file=sys.stderr)
        return 1
    finally:
        poller.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    logging.getLogger("refclient").info("stopped cleanly")
    return 0
