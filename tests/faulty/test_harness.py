"""Unit tests of the harness's pure parts: watch sets and profile overrides."""

from __future__ import annotations

from pathlib import Path

import yaml

from faulty.catalogue import FAULTS, fault
from faulty.harness import family, merged, watch_set, with_overrides
from faulty.recipes import passthrough


def test_family_is_the_first_two_segments() -> None:
    assert family("CFG-PATCH-409-STALE-BASE") == "CFG-PATCH"
    assert family("ERR-BODY-JSON") == "ERR-BODY"


def test_watch_set_holds_the_broken_ids_their_families_and_extras() -> None:
    one = fault("x", "CFG-PATCH-ATOMIC", "doc", passthrough, watch="ERR-BODY-JSON")
    watched = watch_set(one)
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
