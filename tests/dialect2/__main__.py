"""``python3 -m dialect2 DIR``: serve the second dialect with its profile in DIR until
interrupted."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from dialect2.profile import write
from dialect2.server import serve


def main() -> None:
    workdir = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    profile = workdir / "profile.yaml"
    server = serve(workdir / "refserver.db", profile)
    write(profile)
    print(f"{server.base_url} {profile}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
