"""``python -m refclient`` / ``refclient``: poll until SIGTERM or SIGINT, one log line per poll.

Exit 0 after a clean stop, 1 when the service refuses the client for good (a 4xx), 2 when the
environment is incomplete (see ``refclient.environment``). Logs go to stderr.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from types import FrameType

from refclient.config import Config
from refclient.environment import UsageError, launch_from
from refclient.errors import PermanentError
from refclient.version import SDK_VERSION

LOG = logging.getLogger("refclient")
SIGNAL_CHECK_SECONDS = 0.05
USAGE = (
    "usage: python -m refclient  (configured by environment: RCES_BASE_URL, RCES_SDK_KEY, "
    "RCES_INSTANCE_ID; optional RCES_ENVIRONMENT, RCES_SCENARIO, RCES_TIME_SCALE, "
    "RCES_HASH_TRANSPORT, RCES_JITTER_READING, RCES_PROJECT_ID)"
)


class _StopSignal:
    """SIGTERM/SIGINT, installed before the HTTP stack is imported (a signal that lands while it
    loads is a clean stop too). The handler only sets a flag: taking a lock in a handler can
    deadlock against the interrupted thread. The poller's wait polls the flag in short slices."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds``, or less once a signal came."""
        deadline = time.monotonic() + seconds
        while not self.requested:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, SIGNAL_CHECK_SECONDS))


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
    handler = _StopSignal()
    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return _run(launch.config, launch.scenario, handler)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _run(config: Config, scenario: str | None, handler: _StopSignal) -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s refclient %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per poll: ours
    LOG.info(
        "start %s base_url=%s instance=%s environment=%s scenario=%s time_scale=%g",
        SDK_VERSION,
        config.base_url,
        config.instance_id,
        config.environment,
        scenario or "-",
        config.time_scale,
    )
    from refclient.sync_poller import Poller  # the slow import, after the handlers

    def wait(seconds: float) -> None:
        handler.wait(seconds)
        if handler.requested:
            poller.stop()

    poller = Poller(dataclasses.replace(config, sleep=wait))
    if handler.requested:
        poller.stop()
    try:
        poller.run_forever()
    except PermanentError as error:
        print(f"refclient: {error}", file=sys.stderr)
        return 1
    finally:
        poller.close()
    LOG.info("stopped cleanly")
    return 0
