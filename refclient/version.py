"""The client's version, sent as ``sdkversion: refclient/<version>``."""

from __future__ import annotations

__version__ = "0.1.0"
SDK_VERSION = f"refclient/{__version__}"
