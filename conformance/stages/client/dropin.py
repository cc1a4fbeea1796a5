"""The client stage's two levels: a departure from a ``client`` key is an interface failure when
the profile declares the key (writes it, or ``conventions: production``), and a drop-in
difference when the key is left at its default (the production convention). Judges return both
kinds; ``split`` parts them for ``conclude`` and the notebook."""

from __future__ import annotations

from collections.abc import Iterable

from conformance.stages.client.settings import ClientSettings
from conformance.verdict.difference import Difference
from conformance.verdict.finding import Finding, failed

Judged = Finding | Difference


def departs(
    settings: ClientSettings,
    key: str,
    requirement: str,
    title: str,
    convention: str,
    received: str,
) -> Judged:
    """The client departs from ``client.<key>``: a failure if declared, else a difference."""
    value = str(getattr(settings, key))
    if settings.declares(key):
        return failed(
            requirement,
            title,
            f"{value} (declared: client.{key} = {value})",
            received,
        )
    return Difference(
        requirement_ids=(requirement,),
        key=f"client.{key}",
        convention=convention,
        received=received,
        title=title,
    )


def split(judged: Iterable[Judged]) -> tuple[list[Finding], list[Difference]]:
    """The findings (interface level) and the differences (drop-in level)."""
    findings: list[Finding] = []
    differences: list[Difference] = []
    for item in judged:
        if isinstance(item, Difference):
            differences.append(item)
        else:
            findings.append(item)
    return findings, differences
