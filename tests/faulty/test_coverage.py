"""Self-test of the catalogue's reach: every server requirement is broken by some fault, or is
listed as not breakable from the outside with a reason; names and ids are well-formed.

Reach counts the one-defect faults only: an escape (``faulty.escapes``) breaks requirements by
withholding answers (a 429 on every management call fails 123 at once), which says nothing of
whether the requirement's own rule can be broken alone."""

from __future__ import annotations

from collections.abc import Callable

from conformance.catalogue.requirements import load_catalogue
from faulty.catalogue import FAULTS
from faulty.escapes import ESCAPE_PREFIX
from faulty.not_breakable import NOT_BREAKABLE

DEFECTS = tuple(f for f in FAULTS if not f.name.startswith(ESCAPE_PREFIX))


def test_every_server_requirement_is_broken_or_listed(
    record_property: Callable[[str, object], None],
) -> None:
    checkable = {r.id for r in load_catalogue() if r.checkable}
    broken = set().union(*(f.breaks for f in DEFECTS))
    record_property("requirements_checkable", len(checkable))
    record_property("requirements_with_fault", len(checkable & broken))
    record_property("requirements_breakable", len(checkable - set(NOT_BREAKABLE)))
    assert sorted(checkable - broken - set(NOT_BREAKABLE)) == []


def test_not_breakable_entries_are_server_requirements_without_a_fault() -> None:
    catalogue = load_catalogue()
    broken = set().union(*(f.breaks for f in DEFECTS))
    for requirement_id, reason in NOT_BREAKABLE.items():
        assert requirement_id in catalogue and catalogue[requirement_id].checkable, requirement_id
        assert requirement_id not in broken, f"{requirement_id} is listed but a fault breaks it"
        assert len(reason) > 40, f"{requirement_id}: give a real reason"


def test_faults_name_known_requirements_once() -> None:
    catalogue = load_catalogue()
    names = [f.name for f in FAULTS]
    assert len(names) == len(set(names))
    for fault in FAULTS:
        assert fault.breaks, fault.name
        unknown = sorted(i for i in fault.breaks | fault.watch if i not in catalogue)
        assert unknown == [], f"{fault.name} names unknown ids {unknown}"
        assert all(catalogue[i].checkable for i in fault.breaks), fault.name
        assert fault.doc.strip(), fault.name


def test_the_escapes_section_is_there_and_named() -> None:
    escapes = [f for f in FAULTS if f.name.startswith(ESCAPE_PREFIX)]
    assert escapes, "the catalogue lost its escapes section"
    assert FAULTS[-len(escapes) :] == tuple(escapes), "escapes come last, as one section"
