"""The trace stays true: ``docs/trace.md`` and ``conformance/catalogue/kill_rates.json`` are what
the generator writes now (from the source they were written from: the declarations, or the kept
selftest record they name), every statement names requirements that exist (or says why nothing
can observe it), and every requirement of the catalogue serves a statement, a convention, a
declared objective or the kit's own rule."""

from __future__ import annotations

from conformance.catalogue.requirements import load_catalogue
from spec_trace.figures import KILL_RATES, kept_source
from spec_trace.generate import DOC, generate
from spec_trace.trace import rows, statements, unplaced


def test_the_published_trace_and_kill_rates_are_current() -> None:
    source = kept_source()
    again = " --record " + str(source.named) if source.record else ""
    if source.record is not None:
        assert source.record.exists(), f"{KILL_RATES.name} names a record that is not kept"
    trace, data = generate(source)
    stale = f"is stale: run python tests/spec_trace/generate.py{again}"
    assert DOC.read_text("utf-8") == trace, f"docs/trace.md {stale}"
    assert KILL_RATES.read_text("utf-8") == data, f"conformance/catalogue/kill_rates.json {stale}"


def test_every_statement_names_known_requirements_or_why_none() -> None:
    known = {r.id for r in load_catalogue()}
    for entry in statements():
        named = set(entry.get("requirements") or [])  # type: ignore[call-overload]
        assert named <= known, (entry["id"], sorted(named - known))
        assert named or entry.get("unobservable"), entry["id"]


def test_a_reason_for_no_exact_fault_holds_only_while_none_is_caught() -> None:
    """A statement says why no one-defect fault can break it alone only while none does: once
    a fault breaking exactly it is caught, the reason is stale."""
    for row in rows():
        if row.no_exact_fault:
            assert not any(f.exact for f in row.only), (row.id, [f.name for f in row.only])


def test_every_requirement_serves_a_statement() -> None:
    assert unplaced(rows()) == []


def test_the_statements_are_the_audits_numbering() -> None:
    assert [e["id"] for e in statements()] == [f"S{n}" for n in range(1, 140)]
