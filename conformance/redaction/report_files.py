"""Redaction: the last defence that keeps profile secrets out of every file the suite writes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar

from conformance.redaction.placeholders import Redactor, spelled

MASK = "***"
# Values that are already masks or unresolved ``${ENV}`` references, not secrets themselves.
PLACEHOLDER = re.compile(r"\*+|<redacted>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\s*")
T = TypeVar("T")
K = TypeVar("K")

# Profile keys whose every string leaf is a secret, wherever they sit ...
SECRET_KEYS = frozenset({"credentials", "pat", "key", "token", "password", "secret"})
# ... except below these, which name scopes, not secrets.
PUBLIC_KEYS = frozenset({"environments"})


def spellings(secrets: Iterable[str]) -> list[str]:
    """All escaped forms of the non-empty secrets, longest first (so no partial leftovers)."""
    return [form for form, _ in spelled((secret, MASK) for secret in secrets)]


def masker(secrets: Iterable[str]) -> Redactor:
    """A redactor that masks each secret, in any spelling or cut short at an ellipsis."""
    return Redactor(dict.fromkeys((secret for secret in secrets if secret), MASK))


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of every secret (in any escaped spelling) masked."""
    return masker(secrets).text(text)


def _redact_forms(value: Any, mask: Redactor) -> Any:  # the same kind of value, as redact_value
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return mask.text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _redact_forms(getattr(value, f.name), mask) for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    if isinstance(value, Mapping):
        return {_redact_forms(k, mask): _redact_forms(v, mask) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_redact_forms(v, mask) for v in value)
    if isinstance(value, list):
        return [_redact_forms(v, mask) for v in value]
    return value


def redact_value(value: T, secrets: Iterable[str]) -> T:
    """A copy of ``value`` (a Report, dataclass, dict, list, str, ...) with secrets masked."""
    mask = masker(secrets)
    if not mask.known:
        return value
    result: T = _redact_forms(value, mask)
    return result


def _secret_leaves(node: object, secret: bool = False) -> Iterable[tuple[bool, str]]:
    """Every string leaf with whether it is a secret (it sits under a secret-named key and
    not under a public one)."""
    if isinstance(node, Mapping):
        for key, item in node.items():
            name = str(key).lower()
            inner = False if name in PUBLIC_KEYS else secret or name in SECRET_KEYS
            yield from _secret_leaves(item, inner)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _secret_leaves(item, secret)
    elif isinstance(node, str):
        yield secret, node


def profile_secrets(profile: Mapping[str, object]) -> list[str]:
    """The secret strings of a profile (masks and ``${ENV}`` references excluded)."""
    return sorted(
        {
            value
            for secret, value in _secret_leaves(profile)
            if secret and not PLACEHOLDER.fullmatch(value)
        }
    )


def redact_profile(profile: Mapping[str, object]) -> dict[str, object]:
    """The profile with every secret string leaf replaced by the mask."""

    def entries(node: Mapping[K, object], secret: bool) -> dict[K, object]:
        result: dict[K, object] = {}
        for key, item in node.items():
            name = str(key).lower()
            inner = False if name in PUBLIC_KEYS else secret or name in SECRET_KEYS
            result[key] = walk(item, inner)
        return result

    def walk(node: object, secret: bool) -> object:
        if isinstance(node, Mapping):
            return entries(node, secret)
        if isinstance(node, list | tuple):
            return type(node)(walk(item, secret) for item in node)
        if isinstance(node, str) and secret and not PLACEHOLDER.fullmatch(node):
            return MASK
        return node

    return entries(profile, False)
