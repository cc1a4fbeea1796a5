"""``python3 -m dialect2 DIR``: serve the second dialect with its profile in DIR until
interrupted."""

from __future__ import annotations

from dialect.standalone import serve_until_interrupted

from dialect2.profile import write
from dialect2.server import serve

if __name__ == "__main__":
    serve_until_interrupted(serve, write)
