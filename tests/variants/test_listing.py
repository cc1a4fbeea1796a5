"""docs/variants.md lists the catalogue as it is (quick tier), and the catalogue's entries are
well-formed: unique names, at least 50 entries, every keyed undeclared entry with its declared
twin, every run narrowed to a non-empty selection of known ids."""

from __future__ import annotations

from variants.catalogue import VARIANTS
from variants.listing import DOC, rendered
from variants.variant import ALL, checkable


def test_the_doc_lists_the_catalogue_as_it_is() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text == rendered(text), "docs/variants.md is stale: run python -m variants.listing"


def test_the_catalogue_is_well_formed() -> None:
    names = [v.name for v in VARIANTS]
    assert len(names) == len(set(names)) >= 50
    known = checkable()
    for v in VARIANTS:
        chosen = v.selection()
        if v.requirements == ALL:
            assert chosen is None, v.name
            continue
        assert chosen and chosen <= known, v.name
        assert v.keeps <= known, v.name
        assert not (v.differences & frozenset(v.declare)), v.name
    twins = {v.name.removesuffix("-declared") for v in VARIANTS if v.name.endswith("-declared")}
    undeclared_keyed = {
        v.name for v in VARIANTS if v.differences and not v.name.startswith("combined")
    }
    assert undeclared_keyed <= twins
