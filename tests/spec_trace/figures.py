"""Where the trace's kill rates come from (the declarations, or a selftest record) and the data
file that ships them with the package, ``conformance/catalogue/kill_rates.json``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.json_types import JsonObject, JsonValue
from conformance.selftest.record import exact_by_entry, read_record
from spec_trace.trace import ROOT, SIDE_OF_FAULTS, SIDE_OF_VARIANTS, Entry, Measured, Row

KILL_RATES = ROOT / "conformance" / "catalogue" / "kill_rates.json"


@dataclass(frozen=True)
class Source:
    """The figures' source: a ``conformance selftest --record`` file, or (None) the declarations."""

    record: Path | None = None

    @property
    def named(self) -> str | None:
        """The record as the data file names it: relative to the checkout when inside it."""
        if self.record is None:
            return None
        path = self.record.resolve()
        return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)

    def data(self) -> JsonObject | None:
        return None if self.record is None else read_record(self.record)

    def measured(self) -> Measured:
        data = self.data()
        return None if data is None else exact_by_entry(data)

    def sentence(self, faults: Sequence[Entry] = (), variants: Sequence[Entry] = ()) -> str:
        """How the figures were come by, for the trace and the HTML report."""
        data = self.data()
        if data is None:
            return (
                "as the catalogues declare them (what the long tier holds: every entry caught "
                "exactly, except the strict xfails of the mismatch lists and a dialect variant's "
                "`kit_gap`), not from a measured run"
            )
        measured = exact_by_entry(data)
        ran = data["sides"]  # a list: read_record checked it
        sides = ", ".join(str(s) for s in ran) if isinstance(ran, list) else ""
        chosen = data.get("selection") or {}
        selection = "; selection " + json.dumps(chosen, sort_keys=True) if chosen else ""
        return (
            f"measured by the selftest run recorded in `{self.named}` (sides: {sides}"
            f"{selection}): a fault counts as caught exactly when the kit failed exactly its "
            "declared set, a variant as passed when it passed exactly; the "
            f"{_unheld(faults, SIDE_OF_FAULTS, measured)} fault(s) and "
            f"{_unheld(variants, SIDE_OF_VARIANTS, measured)} variant(s) of a selftest side it "
            "does not hold count as neither, the dialect variants (no selftest side) as declared"
        )


def _unheld(entries: Sequence[Entry], sides: dict[str, str], measured: Measured) -> int:
    """How many of these entries, of a selftest side, the record does not hold."""
    held = measured or {}
    keys = [(sides[e.catalogue], e.name) for e in entries if e.catalogue in sides]
    return sum(1 for key in keys if key not in held)


def kill_rates(rows: Sequence[Row], source: Source, sentence: str) -> JsonObject:
    """Per statement, faults caught exactly and faults that break it, with the figures' source."""
    statements: dict[str, JsonValue] = {}
    for row in rows:
        if row.unobservable:
            statements[row.id] = {"unobservable": True}
        else:
            statements[row.id] = {"caught": row.caught, "faults": len(row.faults)}
    return {
        "generated_by": "python tests/spec_trace/generate.py",
        "source": "declared" if source.record is None else "recorded",
        "record": source.named,
        "how": sentence,
        "statements": statements,
    }


def kept_source() -> Source:
    """The source the shipped data file was generated from (test_trace regenerates with it)."""
    if not KILL_RATES.exists():
        return Source()
    named = json.loads(KILL_RATES.read_text("utf-8")).get("record")
    if not named:
        return Source()
    path = Path(named)
    return Source(path if path.is_absolute() else ROOT / path)


def dumped(data: JsonObject) -> str:
    """The data file's text: its fields one a line, each statement's figures on one line."""
    statements = data["statements"]
    assert isinstance(statements, dict)
    head = [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in data.items() if k != "statements"]
    rows = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in statements.items()]
    return "{\n" + "\n".join(head) + '\n  "statements": {\n' + ",\n".join(rows) + "\n  }\n}\n"
