"""What the report needs of a catalogue entry, with the level the run judges it at."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.verdict.run_verdict import Level


@dataclass(frozen=True)
class RequirementInfo:
    """What the report needs of a catalogue entry. ``level``: where the run judges it (drop-in:
    a convention the profile does not declare, ``verdict.levels``), computed by the caller that
    has the profile; ``convention`` and ``convention_keys`` name the convention and the keys that
    would declare it (none: ``conventions``)."""

    id: str
    section: str
    text: str
    basis: str
    subject: str = "server"
    level: Level = Level.INTERFACE
    title: str = ""
    convention: str = ""
    convention_keys: tuple[str, ...] = ()
