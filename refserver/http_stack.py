"""Which HTTP parser and event loop uvicorn serves refserver with: ``HttpStack`` and ``choose``.

``choose()`` takes httptools for parsing and uvloop for the loop when each is installed (the
``fast`` extra), else h11 and asyncio, each on its own and without a warning. The choice is
passed to uvicorn explicitly as ``http=`` and ``loop=``. uvicorn builds the loop from a factory
inside each ``Server.run`` call (``asyncio.Runner(loop_factory=...)``) and sets no event loop
policy, so a server thread on uvloop leaves every other thread of the process (the suite,
pytest) on asyncio.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class HttpStack:
    """uvicorn's ``http`` and ``loop`` settings."""

    http: str  # "httptools" or "h11"
    loop: str  # "uvloop" or "asyncio"

    @property
    def fast(self) -> bool:
        """Both fast pieces (httptools and uvloop)."""
        return self == FAST

    def __str__(self) -> str:
        return f"{self.http} + {self.loop}"


FAST = HttpStack(http="httptools", loop="uvloop")
PLAIN = HttpStack(http="h11", loop="asyncio")


def installed(name: str) -> bool:
    """Whether ``name`` is installed and imports (a broken build counts as absent)."""
    if importlib.util.find_spec(name) is None:
        return False
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def choose() -> HttpStack:
    """httptools and uvloop where installed, h11 and asyncio for what is not."""
    return HttpStack(
        http=FAST.http if installed(FAST.http) else PLAIN.http,
        loop=FAST.loop if installed(FAST.loop) else PLAIN.loop,
    )
