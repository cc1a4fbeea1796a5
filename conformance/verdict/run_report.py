"""The run's report: which requirements a run reports on, and its ``Report`` from the records and
what is known of the target. What the run answers for (``answers_for``: the requirements of the
stages that ran) comes from the caller, as data: this room imports no stage."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from conformance import __version__
from conformance.catalogue.requirements import catalogue_index, current_baseline, load_catalogue
from conformance.contract.document import contract_sha256
from conformance.json_types import JsonObject
from conformance.report.model import Report
from conformance.verdict.folding import RequirementInfo, build_report
from conformance.verdict.records import TestRecord


def selected_requirements(
    wanted: set[str] | None, seen: Iterable[str], answers_for: frozenset[str] | None = None
) -> list[RequirementInfo]:
    """The requirements a run reports on: ``wanted`` if given, else those in ``answers_for``
    (what the stages that ran answer for, of any subject), else every server rule no stage owns
    alone."""
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
        infos.append(
            RequirementInfo(
                id=rid,
                section=str(getattr(entry, "section", "")),
                text=str(getattr(entry, "text", "")) or "(not in the requirement catalogue)",
                basis=str(getattr(entry, "basis", "")),
                subject=str(getattr(entry, "subject", "server")),
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
) -> Report:
    """The Report of one run from its test records and what is known of the target.

    ``answers_for``: the requirements the stages that ran answer for, as the caller knows them
    (None: every server rule no stage owns alone); ignored when ``wanted`` names the ids."""
    seen = [rid for record in records for rid in record.requirement_ids]
    if wanted is not None:
        records = [record for record in records if wanted.intersection(record.requirement_ids)]
    return build_report(
        records,
        selected_requirements(wanted, seen, answers_for),
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
