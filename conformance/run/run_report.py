"""The run's report: which requirements a run reports on, and its ``Report`` from the records and
what is known of the target. What the run answers for (``answers_for``: the requirements of the
stages that ran) comes from the caller, as data: this module imports no stage."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from conformance import __version__
from conformance.catalogue.requirements import catalogue_index, current_baseline, load_catalogue
from conformance.contract.document import contract_sha256
from conformance.json_types import JsonObject
from conformance.report.model import Report
from conformance.run.folding import RequirementInfo, build_report
from conformance.verdict.records import TestRecord
from conformance.verdict.run_verdict import Level

# Which profile keys the target declares (``Profile.declares``), and whether it declares every
# convention (``conventions: production``); a run with no profile declares none.
Declares = Callable[[str], bool]


def _declares_nothing(key: str) -> bool:
    return False


def selected_requirements(
    wanted: set[str] | None,
    seen: Iterable[str],
    answers_for: frozenset[str] | None = None,
    *,
    production: bool = False,
    declares: Declares = _declares_nothing,
) -> list[RequirementInfo]:
    """The requirements a run reports on: ``wanted`` if given, else those in ``answers_for``
    (what the stages that ran answer for, of any subject), else every server rule no stage owns
    alone; each at the level the profile gives it (``production``, ``declares``): a convention
    it does not declare is judged at the drop-in level."""
    index = catalogue_index()
    if wanted is not None:
        ids = sorted(wanted)
    else:
        ids = [
            r.id
            for r in index.values()
            if (r.id in answers_for if answers_for is not None else getattr(r, "checkable", True))
        ]
        ids += [i for i in dict.fromkeys(seen) if i not in index]
    infos = []
    for rid in ids:
        entry = index.get(rid)
        if entry is None:
            infos.append(
                RequirementInfo(rid, "", "(not in the requirement catalogue)", "", "server")
            )
            continue
        interface = entry.declared_under(production, declares)
        infos.append(
            RequirementInfo(
                id=rid,
                section=entry.section,
                text=entry.text,
                basis=entry.basis,
                subject=entry.subject,
                level=Level.INTERFACE if interface else Level.DROP_IN,
                title=entry.title,
                convention=entry.convention or "",
                convention_keys=entry.declared_by,
            )
        )
    return infos


def report_for_run(
    records: Sequence[TestRecord],
    target_info: Mapping[str, object],
    wanted: set[str] | None,
    *,
    started_at: str,
    duration_s: float,
    stage_details: Mapping[str, JsonObject] | None = None,
    answers_for: frozenset[str] | None = None,
    production: bool = False,
    declares: Declares = _declares_nothing,
) -> Report:
    """The Report of one run from its test records and what is known of the target.

    ``answers_for``: the requirements the stages that ran answer for, as the caller knows them
    (None: every server rule no stage owns alone); ignored when ``wanted`` names the ids.
    ``production``, ``declares``: what the target's profile declares (``Profile.declares``);
    a convention it does not declare is judged at the drop-in level (``verdict.levels``)."""
    seen = [rid for record in records for rid in record.requirement_ids]
    if wanted is not None:
        records = [record for record in records if wanted.intersection(record.requirement_ids)]
    return build_report(
        records,
        selected_requirements(wanted, seen, answers_for, production=production, declares=declares),
        baseline=current_baseline(
            {rid: str(reason) for rid, reason in _mapping(target_info.get("baseline")).items()}
        ),
        suite_version=__version__,
        contract_sha256=contract_sha256(),
        catalogue_sha256=load_catalogue().sha256,
        target_url=str(target_info.get("url", "")),
        target_fingerprint=str(target_info.get("fingerprint", "")),
        profile=_mapping(target_info.get("profile")),
        started_at=started_at,
        duration_s=duration_s,
        stage_details=stage_details,
    )


def _mapping(value: object) -> dict[str, object]:
    """A table of the target info (the profile, its baseline) by name; absent: empty."""
    if not isinstance(value, Mapping):
        return {}
    return {str(key): item for key, item in value.items()}
