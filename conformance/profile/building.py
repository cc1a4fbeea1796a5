"""Typing a validated mapping, defaults merged in, into the profile's dataclasses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import TYPE_CHECKING, TypeVar, get_args, get_origin, get_type_hints

from conformance.profile.model import Profile

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def stage_section(cls: type[T], profile: Profile | Mapping[str, object], name: str) -> T:
    """A stage's own section of the profile (one of ``STAGE_SECTIONS``), typed as its stage
    declares it in ``cls`` by the rules ``build`` follows: a stage's settings live with the stage.
    ``profile``: a loaded profile, or a section's mapping already merged over its defaults."""
    data = profile.raw.get(name) if isinstance(profile, Profile) else profile
    if not isinstance(data, Mapping):
        raise TypeError(f"the profile's {name} section is not a mapping")
    return _section(cls, data)


def build(
    data: dict[str, object], source: Path | None = None, written: frozenset[str] = frozenset()
) -> Profile:
    """Type an already validated mapping with every default merged in (``DEFAULTS``);
    ``written``: the keys the file wrote (``written_keys``)."""
    return _section(Profile, data, source=source, raw=data, written=written)


def _section(cls: type[T], data: Mapping[str, object], **given: object) -> T:
    """One dataclass from the mapping of its section: each field from the key of its name, as
    its annotation says; a key absent from ``data`` is None (its field is ``X | None``)."""
    hints = get_type_hints(cls)
    values = dict(given)
    for item in fields(cls):
        if item.name in values:
            continue
        if item.name in data:
            values[item.name] = _typed(hints[item.name], data[item.name])
        elif _optional(hints[item.name]) is not None:
            values[item.name] = None
        else:  # the schema neither requires the key nor gives it a default
            raise KeyError(f"{cls.__name__}.{item.name}: no value and no default in the schema")
    return cls(**values)


def _optional(hint: object) -> object:
    """``X`` for an annotation ``X | None``, else None."""
    if get_origin(hint) is UnionType and NoneType in get_args(hint):
        (inner,) = (arg for arg in get_args(hint) if arg is not NoneType)
        return inner
    return None


def _typed(hint: object, value: object) -> object:
    """A validated value as its annotation says: a dataclass from a mapping, a tuple from a
    list, a dict with typed keys and values, a scalar converted (an integer as ``float``)."""
    if (inner := _optional(hint)) is not None:
        return None if value is None else _typed(inner, value)
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple and isinstance(value, Iterable):
        return tuple(_typed(args[0], item) for item in value)
    if origin is tuple and isinstance(value, int) and args[0] is int:  # one status for a list
        return (value,)
    if origin is dict and isinstance(value, Mapping):
        return {_typed(args[0], k): _typed(args[1], v) for k, v in value.items()}
    if isinstance(hint, type) and is_dataclass(hint) and isinstance(value, Mapping):
        return _section(hint, value)
    if hint is str or hint is bool:
        return hint(value)
    if (hint is int or hint is float) and isinstance(value, int | float | str):
        return hint(value)
    if origin in (tuple, dict) or hint in (int, float) or is_dataclass(hint):
        raise TypeError(f"a profile key typed {hint!r} holds {value!r}")
    raise TypeError(f"a profile key typed {hint!r}: add it to profile.building._typed")
