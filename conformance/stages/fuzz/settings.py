"""The fuzz stage's section of the target profile (``fuzz:``): where the failure corpus lives.

Typed by the stage that reads it (docs/fuzzing.md); the schema keeps its key and default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conformance.profile import Profile
from conformance.profile.building import stage_section

SECTION = "fuzz"


@dataclass(frozen=True)
class FuzzSection:
    """``fuzz``: the stage's settings in the profile."""

    corpus: str | None  # the failure corpus directory, relative to the profile file


def profile_corpus(profile: Profile) -> Path | None:
    """The profile's ``fuzz.corpus``, relative to the profile file (None: the profile sets none)."""
    corpus = stage_section(FuzzSection, profile, SECTION).corpus
    if not corpus:
        return None
    base = Path(profile.source).parent if profile.source is not None else Path()
    return Path(base / corpus)
