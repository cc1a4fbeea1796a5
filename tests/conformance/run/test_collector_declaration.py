"""What the collector reads of the profile for the levels (``collector.declaration``): the run's
target's profile, else a client-only run's profile file, else nothing declared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.run.collector import declaration


class _Config:
    """The two things ``declaration`` asks of a pytest config: its stash and its options."""

    def __init__(self, **options: Any) -> None:
        self.stash: dict[object, object] = {}
        self.options = options

    def getoption(self, name: str, default: object = None) -> object:
        return self.options.get(name, default)


def _declared(config: _Config) -> tuple[bool, bool, bool]:
    production, declares = declaration(config)  # type: ignore[arg-type]
    return production, declares("rate_limit.scope"), declares("client.jitter_reading")


def test_no_profile_declares_nothing() -> None:
    assert _declared(_Config()) == (False, False, False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("conventions: production\n", (True, True, True)),
        ("conventions: none\nclient:\n  jitter_reading: above\n", (False, False, True)),
        ("rate_limit:\n  scope: instance\n", (False, True, False)),
        ("- not a mapping\n", (False, False, False)),
    ],
)
def test_a_client_profile_file_declares_what_it_writes(
    tmp_path: Path, text: str, expected: tuple[bool, bool, bool]
) -> None:
    path = tmp_path / "client.yaml"
    path.write_text(text, encoding="utf-8")
    assert _declared(_Config(client_profile=str(path))) == expected
