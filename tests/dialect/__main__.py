"""``python3 -m dialect DIR``: serve the dialect with its profile in DIR until interrupted."""

from __future__ import annotations

from dialect.profile import write
from dialect.server import serve
from dialect.standalone import serve_until_interrupted

if __name__ == "__main__":
    serve_until_interrupted(serve, write)
