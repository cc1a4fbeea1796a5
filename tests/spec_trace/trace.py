"""The trace as data: for each statement of ``conformance/catalogue/statements.yaml``, the
requirements that judge it (with their basis and the test modules that name them), the faults of
every catalogue whose declared breaks touch it (and which of them break nothing else), the
correct variants that keep it, and its kill rate: faults caught exactly / faults that break it.

"Caught exactly" comes from one of two sources (``figures.Source``). Declared: what the long
tier holds, every catalogue entry failing exactly its declared set, except the strict xfails of
the mismatch lists (and a dialect variant's ``kit_gap``), which count as not caught. Measured: a
``conformance selftest --record`` file, entry by entry (``Measured``); an entry of a selftest side
the record does not hold counts as not caught, the dialect's (no selftest side) as declared.
Reads ``tests/`` (the catalogues); nothing in ``conformance/`` reads this.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from conformance.catalogue.requirements import load_catalogue

ROOT = Path(__file__).resolve().parents[2]
STATEMENTS = ROOT / "conformance" / "catalogue" / "statements.yaml"
STAGES = ROOT / "conformance" / "stages"
# (selftest side, entry name) -> came out exactly, from a record; None: the declarations.
Measured = dict[tuple[str, str], bool] | None
# A fault catalogue's selftest side (the dialect's variants are no side: always as declared).
SIDE_OF_FAULTS = {"server": "server", "load": "load", "client": "client"}
SIDE_OF_VARIANTS = {"server": "variants", "client": "client"}
KIT_OWN = {
    "ERR-NO-SERVER-ERROR": "no 5xx for any input: the kit's own robustness rule (B26)",
    "ERR-405-ALLOW": "RFC 9110 15.5.6 for any 405 a target sends: its Allow header",
}


@dataclass(frozen=True)
class Entry:
    """One catalogue entry of either direction: a fault (``breaks``) or a variant (``keeps``)."""

    name: str
    catalogue: str
    ids: frozenset[str]
    exact: bool = True  # a fault caught exactly / a variant passed exactly, as the long tier holds


@dataclass
class Row:
    id: str
    section: str
    statement: str
    requirements: list[str]
    unobservable: str = ""
    no_exact_fault: str = ""  # why no fault can break exactly this statement
    restates: list[str] = field(default_factory=list)
    faults: list[Entry] = field(default_factory=list)
    variants: list[Entry] = field(default_factory=list)

    @property
    def caught(self) -> int:
        return sum(1 for f in self.faults if f.exact)

    @property
    def only(self) -> list[Entry]:
        """The faults that break this statement and nothing beyond its requirements."""
        return [f for f in self.faults if f.ids <= set(self.requirements)]

    @property
    def proven(self) -> bool:
        """A fault that breaks exactly this statement is caught exactly, and a variant that keeps
        it passes (or nothing can observe it)."""
        exact = any(f.exact for f in self.only) or bool(self.no_exact_fault)
        return bool(self.unobservable) or (exact and bool(self.variants))


def statements() -> list[dict[str, object]]:
    data = yaml.safe_load(STATEMENTS.read_text("utf-8"))
    rows: list[dict[str, object]] = data["statements"]
    return rows


def measure(entries: list[Entry], measured: Measured, sides: dict[str, str]) -> list[Entry]:
    """Each entry's exactness from the record, where its catalogue is a selftest side."""
    if measured is None:
        return entries
    return [
        replace(e, exact=measured.get((sides[e.catalogue], e.name), False))
        if e.catalogue in sides
        else e
        for e in entries
    ]


def faults(measured: Measured = None) -> list[Entry]:
    """Every fault of the server, load, client and dialect catalogues."""
    from dialect.variants import VARIANTS as DIALECT
    from faulty.catalogue import FAULTS, LOAD_SECTIONS
    from faulty.clients.catalogue import FAULTS as CLIENTS
    from faulty.clients.mismatches import KNOWN_MISMATCHES as CLIENT_MISSES
    from faulty.mismatches import KNOWN_MISMATCHES

    found = [Entry(f.name, "server", f.breaks, f.name not in KNOWN_MISMATCHES) for f in FAULTS]
    found += [Entry(f.name, "load", f.breaks) for s in LOAD_SECTIONS.values() for f in s]
    found += [Entry(f.name, "client", f.breaks, f.name not in CLIENT_MISSES) for f in CLIENTS]
    found += [Entry(v.name, "dialect", v.breaks, v.kit_gap is None) for v in DIALECT]
    return measure(found, measured, SIDE_OF_FAULTS)


def variants(measured: Measured = None) -> list[Entry]:
    """Every correct variant that says what it keeps: the variant catalogue (``keeps``) and the
    correct clients (every client rule they are judged on)."""
    from faulty.clients.catalogue import CORRECT

    client_rules = frozenset(r.id for r in load_catalogue() if r.subject == "client")
    found = [Entry(v.name, "client", client_rules) for v in CORRECT]
    try:
        catalogue = importlib.import_module("variants.catalogue")
    except ModuleNotFoundError:
        return measure(found, measured, SIDE_OF_VARIANTS)
    for variant in catalogue.VARIANTS:
        exact = getattr(variant, "kit_gap", None) is None
        found.append(Entry(variant.name, "server", frozenset(variant.keeps), exact))
    return measure(found, measured, SIDE_OF_VARIANTS)


def test_modules() -> dict[str, list[str]]:
    """Requirement id -> the test modules of the stages that name it."""
    texts = {
        path.relative_to(ROOT).as_posix(): path.read_text("utf-8")
        for path in sorted(STAGES.rglob("*.py"))
    }
    named: dict[str, list[str]] = {}
    for requirement in load_catalogue():
        quoted = (f'"{requirement.id}"', f"'{requirement.id}'")
        named[requirement.id] = [
            module for module, text in texts.items() if any(q in text for q in quoted)
        ]
    return named


def rows(measured: Measured = None) -> list[Row]:
    catalogue_faults, catalogue_variants = faults(measured), variants(measured)
    built = []
    for entry in statements():
        requirements = [str(i) for i in entry.get("requirements") or []]
        wanted = set(requirements)
        built.append(
            Row(
                id=str(entry["id"]),
                section=str(entry["section"]),
                statement=str(entry["statement"]),
                requirements=requirements,
                unobservable=str(entry.get("unobservable") or ""),
                no_exact_fault=str(entry.get("no_exact_fault") or ""),
                restates=[str(s) for s in entry.get("restates") or []],
                faults=[f for f in catalogue_faults if f.ids & wanted],
                variants=[v for v in catalogue_variants if v.ids & wanted and v.exact],
            )
        )
    return built


def unplaced(built: Iterable[Row]) -> list[str]:
    """Catalogue requirements no statement holds, other than conventions, declared objectives
    and the kit's own rules."""
    held = {i for row in built for i in row.requirements}
    return sorted(
        r.id
        for r in load_catalogue()
        if r.id not in held and r.basis not in ("convention", "declared") and r.id not in KIT_OWN
    )
