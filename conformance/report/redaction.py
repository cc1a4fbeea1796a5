"""Redaction: the last defence that keeps profile secrets out of every file the suite writes."""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

MASK = "***"
T = TypeVar("T")

# Every spelling a secret may take once a renderer has escaped it.
SPELLINGS: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    lambda s: json.dumps(s, ensure_ascii=False)[1:-1],
    lambda s: json.dumps(s)[1:-1],
    lambda s: html.escape(s, quote=True),
    lambda s: html.escape(s, quote=False),
    lambda s: quote(s, safe=""),
    lambda s: quote_plus(s),
)

# Profile keys whose every leaf value is a secret, wherever they sit.
SECRET_KEYS = frozenset({"credentials", "pat", "key", "token", "password", "secret"})


def spellings(secrets: Iterable[str]) -> list[str]:
    """All escaped forms of the non-empty secrets, longest first (so no partial leftovers)."""
    forms = {spell(s) for s in secrets if s for spell in SPELLINGS}
    return sorted((f for f in forms if f), key=lambda f: (-len(f), f))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of every secret (in any escaped spelling) masked."""
    for form in spellings(secrets):
        text = text.replace(form, MASK)
    return text


def _redact_forms(value: Any, forms: list[str]) -> Any:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        for form in forms:
            value = value.replace(form, MASK)
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _redact_forms(getattr(value, f.name), forms) for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    if isinstance(value, Mapping):
        return {_redact_forms(k, forms): _redact_forms(v, forms) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_redact_forms(v, forms) for v in value)
    if isinstance(value, list):
        return [_redact_forms(v, forms) for v in value]
    return value


def redact_value(value: T, secrets: Iterable[str]) -> T:
    """A copy of ``value`` (a Report, dataclass, dict, list, str, ...) with secrets masked."""
    forms = spellings(secrets)
    if not forms:
        return value
    result: T = _redact_forms(value, forms)
    return result


def _leaves(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, str) and value != MASK:
        yield value


def profile_secrets(profile: Mapping[str, Any]) -> list[str]:
    """The secret strings of a profile: every string leaf under a secret-named key."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, item in node.items():
                if str(key).lower() in SECRET_KEYS:
                    found.extend(_leaves(item))
                else:
                    walk(item)
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item)

    walk(profile)
    return sorted(set(found))


def redact_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """The profile with every string leaf under a secret-named key replaced by the mask."""

    def mask(node: Any) -> Any:
        if isinstance(node, Mapping):
            return {key: mask(item) for key, item in node.items()}
        if isinstance(node, list):
            return [mask(item) for item in node]
        if isinstance(node, tuple):
            return tuple(mask(item) for item in node)
        return MASK if isinstance(node, str) else node

    def walk(node: Any) -> Any:
        if isinstance(node, Mapping):
            return {
                key: mask(item) if str(key).lower() in SECRET_KEYS else walk(item)
                for key, item in node.items()
            }
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result: dict[str, Any] = walk(profile)
    return result
