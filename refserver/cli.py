"""``refserver serve``: run the reference server from the command line.

    refserver serve [--db ./refserver.db] [--host 127.0.0.1] [--port 8000] [--profile PATH]
                    [--rate-burst 60] [--rate-refill 30] [--shed-threshold 150]
                    [--force-shedding] [--log-level info]

``--port 0`` picks a free port. It provisions a fresh database, writes the target profile
(mode 0600) next to the database or to ``--profile``, prints the profile path and the URL, and
shuts down gracefully on SIGINT/SIGTERM. It serves with httptools and uvloop when they are
installed (``pip install 'rces-conformance[fast]'``), else with h11 and asyncio, and says which.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

import uvicorn

from refserver import target_profile
from refserver.app import create_app
from refserver.http_stack import choose
from refserver.runner import bind_socket, make_settings, url_of, uvicorn_config
from refserver.settings import Settings

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def parser() -> argparse.ArgumentParser:
    """The command-line grammar."""
    defaults = Settings()
    top = argparse.ArgumentParser(prog="refserver", description="RCES reference server")
    commands = top.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the interface over HTTP")
    serve.add_argument(
        "--db", type=Path, default=Path("refserver.db"), help="SQLite file (default: %(default)s)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address (default: %(default)s)")
    serve.add_argument(
        "--port", type=int, default=8000, help="0 picks a free port (default: %(default)s)"
    )
    serve.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="where the target profile is written (default: <db>.profile.yaml)",
    )
    serve.add_argument(
        "--rate-burst",
        type=int,
        default=defaults.rate_burst,
        help="SDK requests a bucket holds (default: %(default)s)",
    )
    serve.add_argument(
        "--rate-refill",
        type=float,
        default=defaults.rate_refill,
        help="tokens a bucket regains per second (default: %(default)g)",
    )
    serve.add_argument(
        "--rate-scope",
        choices=("key-and-instance", "instance"),
        default=defaults.rate_scope,
        help="what one bucket is kept for: each SDK key and instance id, or the instance id "
        "whatever the key (without an id: the caller's address) (default: %(default)s)",
    )
    serve.add_argument(
        "--shed-threshold",
        type=int,
        default=defaults.shed_threshold,
        help="SDK requests per second above which responses carry the polling hint "
        "(default: %(default)s)",
    )
    serve.add_argument(
        "--force-shedding", action="store_true", help="always carry the polling hint"
    )
    serve.add_argument(
        "--log-level", choices=LOG_LEVELS, default="info", help="(default: %(default)s)"
    )
    return top


def serve(args: argparse.Namespace) -> int:
    """Provision, write the profile, print where, and serve until signalled."""
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = make_settings(
        args.db,
        rate_burst=args.rate_burst,
        rate_refill=args.rate_refill,
        rate_scope=args.rate_scope,
        shed_threshold=args.shed_threshold,
        force_shedding=args.force_shedding,
    )
    app = create_app(settings)
    profile = args.profile or target_profile.default_path(settings.db_path)
    target_profile.write(app.state.rces.store, settings, profile)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as exc:
        print(f"refserver: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    print(f"refserver: profile written to {profile.resolve()}", flush=True)
    stack = choose()
    print(
        f"refserver: serving {url_of(sock)} (database {settings.db_path.resolve()}; {stack})",
        flush=True,
    )
    server = uvicorn.Server(uvicorn_config(app, args.log_level, stack))
    # uvicorn shuts down gracefully, then re-raises the signal it caught: exit 0 quietly then.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _exit_quietly)
    server.run(sockets=[sock])
    return 0


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``refserver`` script."""
    args = parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
