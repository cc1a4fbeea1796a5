"""The ``--requirements`` ids of a run: the one parser of the option's value (``given``,
``selected``), and the ids held against the catalogue and the chosen stages' scope before anything
starts: an id no chosen stage answers for is one usage error, with the close match ("did you
mean") or the stage that judges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import get_close_matches

from conformance.catalogue.requirements import Catalogue, load_catalogue
from conformance.errors import UsageError
from conformance.registry.declaration import Stage

CATALOGUE_FILE = "conformance/catalogue/requirements.yaml"


def given(raw: str | None) -> list[str]:
    """The ids of a ``--requirements`` value, in order, without blanks or repeats."""
    if not raw:
        return []
    return list(dict.fromkeys(part.strip() for part in str(raw).split(",") if part.strip()))


def selected(raw: str | None) -> set[str] | None:
    """The ids a run is narrowed to; None when no ``--requirements`` was given (every id)."""
    if not raw:
        return None
    return set(given(raw))


def check(raw: str | None, stages: Sequence[Stage]) -> None:
    """Every id of ``raw`` is one the ``stages`` answer for; else a UsageError naming each one
    that is not, with what to pass instead. No stage (a user's own tests): nothing to hold."""
    ids = given(raw)
    if not ids or not stages:
        return
    scope = frozenset().union(*(stage.requirements() for stage in stages))
    wrong = [rid for rid in ids if rid not in scope]
    if not wrong:
        return
    catalogue = load_catalogue()
    chosen = ", ".join(stage.name for stage in stages)
    problems = [_problem(rid, catalogue, scope, chosen) for rid in wrong]
    raise UsageError(
        f"--requirements: {'; '.join(problems)}",
        f"pass ids of the stage(s) run ({chosen}); every id is in {CATALOGUE_FILE}",
    )


def _problem(rid: str, catalogue: Catalogue, scope: frozenset[str], chosen: str) -> str:
    entry = catalogue.get(rid)
    if entry is not None:
        judges = ", ".join(entry.stages) or "no stage"
        return f"{rid} is judged by --stage {judges}, not by {chosen}"
    renamed = catalogue.renamed().get(rid)
    if renamed is not None:
        return f"{rid} is now {renamed}"
    close = _close(rid, sorted(scope)) or _close(rid, list(catalogue.ids()))
    if close:
        return f"unknown requirement id {rid}: did you mean {' or '.join(close)}?"
    return f"unknown requirement id {rid}"


def _close(rid: str, candidates: list[str]) -> list[str]:
    return get_close_matches(rid.upper(), candidates, n=2, cutoff=0.75)
