"""Slugs for aliases: lowercase, whitespace to ``-``, only ``a-z0-9-``, runs collapsed, trimmed."""

from __future__ import annotations

import re

_WHITESPACE = re.compile(r"\s+")
_OUTSIDE = re.compile(r"[^a-z0-9-]")
_RUNS = re.compile(r"-{2,}")


def slugify(text: str) -> str:
    """``"  Shop Prices (v2) "`` -> ``"shop-prices-v2"``."""
    slug = _WHITESPACE.sub("-", text.lower())
    slug = _OUTSIDE.sub("", slug)
    slug = _RUNS.sub("-", slug)
    return slug.strip("-")
