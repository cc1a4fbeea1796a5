"""The ``Variant`` record: one correct-but-different server, the keys it declares, the drop-in
differences its run must list exactly, and the requirements its run judges."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from faulty.asgi import Handler
from faulty.harness import family

ALL = "all"  # requirements: every checkable requirement (a combined variant)


@cache
def _catalogue() -> tuple[tuple[str, frozenset[str]], ...]:
    from conformance.catalogue.requirements import load_catalogue

    return tuple((r.id, frozenset(r.keys)) for r in load_catalogue() if r.checkable)


def checkable() -> frozenset[str]:
    return frozenset(i for i, _ in _catalogue())


def dotted_keys(data: Mapping[str, Any], prefix: str = "") -> frozenset[str]:
    """The dotted profile keys a nested mapping writes (a list or scalar ends a key)."""
    keys: set[str] = set()
    for name, value in data.items():
        if isinstance(value, Mapping) and value:
            keys |= dotted_keys(value, f"{prefix}{name}.")
        else:
            keys.add(prefix + name)
    return frozenset(keys)


def resting_on(keys: frozenset[str]) -> frozenset[str]:
    """The checkable requirements resting on any of ``keys`` (or a key under one), with every
    checkable id of their families (as ``dialect.harness.watch_set`` widens a selection)."""

    def hits(rests: frozenset[str]) -> bool:
        return any(
            r == k or r.startswith(k + ".") or k.startswith(r + ".") for r in rests for k in keys
        )

    direct = {i for i, rests in _catalogue() if hits(rests)}
    families = {family(i) for i in direct}
    return frozenset(direct | {i for i in checkable() if family(i) in families})


@dataclass(frozen=True)
class Variant:
    """A correct server that fills one gap (or several) another way than the reference."""

    name: str
    doc: str  # the choice, and the spec's words that leave it open
    keeps: frozenset[str]  # requirement ids whose statement it keeps in its own way
    make: Callable[[], Handler]  # the ASGI handler over the reference app
    declare: dict[str, Any] = field(default_factory=dict)  # profile keys over the base profile
    differences: frozenset[str] = frozenset()  # the drop-in differences its run lists, exactly
    stages: tuple[str, ...] = ("scenarios",)
    # The run's selection: None = the requirements resting on the changed keys and their
    # families, plus ``watch``; ALL = every checkable requirement.
    requirements: frozenset[str] | str | None = None
    watch: frozenset[str] = frozenset()  # families to add (ids; their families are judged)
    kit_gap: str | None = None  # a strict xfail naming the kit defect
    settings: dict[str, Any] = field(default_factory=dict)  # the reference server's settings
    # What the variant issues in place of the reference's own profile values (its own
    # credentials, say): applied to the written profile, after the declarations.
    issues: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    @property
    def keys(self) -> frozenset[str]:
        """The profile keys the change touches: its differences and its declarations."""
        return self.differences | dotted_keys(self.declare)

    def selection(self) -> frozenset[str] | None:
        """The ``--requirements`` of its run (None: every requirement, no narrowing)."""
        if self.requirements == ALL:
            return None
        if isinstance(self.requirements, frozenset):
            return self.requirements
        chosen = resting_on(self.keys) | self.keeps | self.watch
        families = {family(i) for i in chosen}
        return frozenset(chosen | {i for i in checkable() if family(i) in families})


def direct(keys: frozenset[str]) -> frozenset[str]:
    """The checkable requirements whose ``rests_on.keys`` name one of ``keys`` (or a key under
    one): what a variant changing those keys keeps in its own way."""
    return frozenset(
        i
        for i, rests in _catalogue()
        if any(r == k or r.startswith(k + ".") for r in rests for k in keys)
    )


def pair(
    name: str, doc: str, make: Callable[[], Handler], values: dict[str, Any], **more: Any
) -> tuple[Variant, Variant]:
    """The change left undeclared (its keys, or ``differences`` when the change departs from
    more conventions than the keys it declares, are its exact drop-in differences) and the same
    change declared in the profile (no difference at all)."""
    keys = dotted_keys(values)
    keeps = more.pop("keeps", None) or direct(keys)
    undeclared: frozenset[str] = more.pop("differences", None) or keys
    gap = more.pop("declared_gap", None)
    undeclared_gap = more.pop("undeclared_gap", None)
    return (
        Variant(
            name,
            doc,
            keeps,
            make,
            differences=undeclared,
            **{**more, "kit_gap": undeclared_gap or more.get("kit_gap")},
        ),
        Variant(
            f"{name}-declared",
            f"{doc} (declared in the profile)",
            keeps,
            make,
            declare=values,
            **{**more, "kit_gap": gap or more.get("kit_gap")},
        ),
    )
