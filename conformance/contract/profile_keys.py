"""What each profile key fills in the contract, and what value each key has for one target.

The contract marks every element a profile key fills with ``x-profile-key`` (a dotted key, or a
list of them); ``marks(node)`` reads them. ``RULES`` says, as data, what each key fills: a
parameter's name, a property's name, a response's status, an enum, an enum value, a bound, or
the form of a structural choice (``conformance.contract.forms``); ``rule_of(key)`` looks it up.
``Values`` holds a target's value of each key beside the contract's own (the profile's
defaults), and ``fill`` records on a node which value it was given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from conformance.profile.defaults import DEFAULTS

if TYPE_CHECKING:
    from conformance.profile import Profile

MARK = "x-profile-key"
VALUE_MARK = "x-profile-value"
DECLARED_MARK = "x-declared"  # true on an element whose value the profile changed

NAME = "parameter name"
PROPERTY = "property name"
STATUS = "response status"
ENUM = "enum"
ENUM_VALUE = "enum value"
MAXIMUM = "maximum"
MAX_ITEMS = "maxItems"
# Structural choices: the element's schema takes another form (``forms.FORMS``).
PAGINATION = "pagination"
BASE_HASH_TRANSPORT = "base hash transport"
PATH_SYNTAX = "path syntax"
KEY_ORDER_SHAPE = "key order shape"
CHANGESET_FORMAT = "changeset format"

# (key pattern, what the key fills): the first pattern that matches a key decides.
RULES: tuple[tuple[str, str], ...] = (
    ("headers.*", NAME),
    ("experiment_payload.*_param", NAME),
    ("statuses.*", STATUS),
    ("errors.*_status", STATUS),
    ("experiments.unit_types", ENUM),
    ("experiments.assignment_modes", ENUM),
    ("experiments.max_groups", MAX_ITEMS),
    ("experiments.weight_total", MAXIMUM),
    ("experiments.page_size_max", MAXIMUM),
    ("experiment_payload.running", ENUM_VALUE),
    ("experiment_payload.terminated", ENUM_VALUE),
    ("experiment_payload.member_*", ENUM_VALUE),
    ("experiment_payload.pagination", PAGINATION),
    ("bodies.patch.base_hash_transport", BASE_HASH_TRANSPORT),
    ("bodies.path_syntax", PATH_SYNTAX),
    ("bodies.private_path_syntax", PATH_SYNTAX),
    ("bodies.patch.key_order_shape", KEY_ORDER_SHAPE),
    ("experiment_payload.changeset_format", CHANGESET_FORMAT),
    ("bodies.*", PROPERTY),
    ("errors.*_field", PROPERTY),
    ("bootstrap_payload.*", PROPERTY),
    ("experiment_payload.*", PROPERTY),
)
# A property marked with the first key is required only while the second key has that value
# (with offset or page pagination a last page need not say there is no next one).
REQUIRED_ONLY_WHEN: dict[str, tuple[str, str]] = {
    "experiment_payload.next_cursor": ("experiment_payload.pagination", "cursor"),
}
# A key whose value may be null: null means the value of this other key (a status, a syntax).
STATUS_FALLBACK: dict[str, str] = {
    "errors.malformed_body_status": "errors.validation_status",
    "bodies.private_path_syntax": "bodies.path_syntax",
}


def rule_of(key: str) -> str | None:
    """What ``key`` fills (one of the kinds above), or None for a key no rule knows."""
    return next((kind for pattern, kind in RULES if fnmatchcase(key, pattern)), None)


def marks(node: object) -> tuple[str, ...]:
    """The profile keys a node carries (``x-profile-key``: one key or a list)."""
    if not isinstance(node, dict) or MARK not in node:
        return ()
    given = node[MARK]
    return tuple(str(k) for k in given) if isinstance(given, list) else (str(given),)


class _Missing:
    def __repr__(self) -> str:
        return "(no such key)"


MISSING = _Missing()  # the value of a key a profile does not have


def _lookup(data: object, key: str) -> object:
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return MISSING
        data = data[part]
    return data


@dataclass(frozen=True)
class Values:
    """The value of each profile key for one target, and the contract's own (the default)."""

    given: Mapping[str, object]
    defaults: Mapping[str, object]

    @classmethod
    def of(cls, profile: Profile) -> Values:
        return cls(profile.raw, DEFAULTS)

    def value(self, key: str) -> object:
        """The profile's value of ``key`` (a null falls back as ``STATUS_FALLBACK`` says);
        ``MISSING`` for a key this profile does not have."""
        found = _lookup(self.given, key)
        if found is None and key in STATUS_FALLBACK:
            return self.value(STATUS_FALLBACK[key])
        return found

    def default(self, key: str) -> object:
        found = _lookup(self.defaults, key)
        if found is None and key in STATUS_FALLBACK:
            return self.default(STATUS_FALLBACK[key])
        return found

    def changed(self, key: str) -> bool:
        value = self.value(key)
        return value is not MISSING and value != self.default(key)


def fill(node: dict[str, object], key: str, value: object, values: Values) -> None:
    """Mark ``node`` as filled from ``key`` with ``value``."""
    if len(marks(node)) > 1:  # one value per key
        filled = node.setdefault(VALUE_MARK, {})
        if isinstance(filled, dict):
            filled[key] = value
    else:
        node[VALUE_MARK] = value
    if values.changed(key):
        node[DECLARED_MARK] = (
            True  # beside its x-spec, which still says where the element came from
        )
