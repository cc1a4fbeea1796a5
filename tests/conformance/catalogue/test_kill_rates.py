"""The kill rates shipped with the package: every statement has figures, and each requirement
reads the statements that name it, in the specification's order."""

from __future__ import annotations

import json
from importlib import resources

from conformance.catalogue.kill_rates import KILL_RATES_FILE, load_kill_rates


def test_every_statement_has_figures_and_a_source() -> None:
    text = resources.files("conformance.catalogue").joinpath(KILL_RATES_FILE).read_text("utf-8")
    data = json.loads(text)
    assert list(data["statements"]) == [f"S{n}" for n in range(1, 140)]
    assert data["source"] in ("declared", "recorded") and data["how"]


def test_a_requirement_reads_the_statements_that_name_it() -> None:
    rates = load_kill_rates()
    judged = rates.of("CFG-CREATE-NEW-ID")
    assert [s.id for s in judged] == ["S2", "S16", "S67"]
    assert all(s.faults >= s.caught >= 0 for s in judged)
    assert judged[1].words == "id: number"
    assert judged[1].figure == f"{judged[1].caught}/{judged[1].faults}"
    assert rates.of("NO-SUCH-REQUIREMENT") == ()
