"""Unit tests of the harness's pure parts: watch sets (family and full), profile overrides, the
command line, and the selftest's fault selection."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from faulty.catalogue import FAULTS, fault
from faulty.harness import FULL_ENV, checkable_ids, family, suite_arguments, watch_set
from faulty.recipes import passthrough
from tests.support.profiles import merged, with_overrides


def test_family_is_the_first_two_segments() -> None:
    assert family("CFG-PATCH-409-STALE-BASE") == "CFG-PATCH"
    assert family("ERR-BODY-JSON") == "ERR-BODY"


def test_watch_set_holds_the_broken_ids_their_families_and_extras() -> None:
    one = fault("x", "CFG-PATCH-ATOMIC", "doc", passthrough, watch="ERR-BODY-JSON")
    watched = watch_set(one, full=False)
    assert {"CFG-PATCH-ATOMIC", "CFG-PATCH-409-STALE-BASE", "ERR-BODY-JSON"} <= watched
    assert not any(i.startswith("SDK-") for i in watched)


def test_every_fault_watches_at_least_what_it_breaks() -> None:
    for entry in FAULTS:
        assert entry.breaks <= watch_set(entry), entry.name


def test_profile_overrides_merge_deeply(tmp_path: Path) -> None:
    assert merged({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}) == {"a": {"b": 3, "c": 2}}
    profile = tmp_path / "p.yaml"
    profile.write_text("conditional:\n  require_list_and_weak: false\nother: 1\n")
    with_overrides(profile, {"conditional": {"require_list_and_weak": True}})
    assert yaml.safe_load(profile.read_text()) == {
        "conditional": {"require_list_and_weak": True},
        "other": 1,
    }


def test_full_mode_watches_every_checkable_requirement_unnarrowed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    one = fault("x", "CFG-PATCH-ATOMIC", "doc", passthrough)
    every = checkable_ids()
    monkeypatch.delenv(FULL_ENV, raising=False)
    assert watch_set(one) < every
    monkeypatch.setenv(FULL_ENV, "1")
    assert watch_set(one) == every
    whole = suite_arguments("http://x", tmp_path / "p.yaml", every, tmp_path / "r")
    assert "--requirements" not in whole
    narrow = suite_arguments("http://x", tmp_path / "p.yaml", frozenset({"A"}), tmp_path / "r")
    assert narrow[narrow.index("--requirements") + 1] == "A"


def test_only_picks_exact_names_and_sections() -> None:
    from faulty.test_catalogue import selected

    names = [f.name for f in selected(FAULTS, "section:escapes")]
    assert names and all(n.startswith("escape-") for n in names)
    assert [f.name for f in selected(FAULTS, "polling-never")] == ["polling-never"]
    assert len(selected(FAULTS, "")) == len(FAULTS)
    both = selected(FAULTS, "section:escapes,polling-never")
    assert {f.name for f in both} == {"polling-never", *names}
    with pytest.raises(ValueError, match="no fault called nope"):
        selected(FAULTS, "nope")
