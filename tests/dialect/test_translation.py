"""Quick tier: the dialect's pure translation pieces (hash table, paths, changesets, offsets,
timestamps, throttle, header spellings), each against values worked out by hand."""

from __future__ import annotations

import asyncio

import pytest
from faulty.asgi import Response

from conformance.oracles.header_grammar import (
    EntityTag,
    MediaType,
    Problem,
    entity_tag,
    http_date,
    media_type,
)
from dialect.changesets import ChangesetError, to_json_patch, to_segments
from dialect.hashes import UNKNOWN_PREFIX, HashTable, dialect_hash, strong_tag
from dialect.offsets import OffsetError, Window, whole_list, window
from dialect.paths import PathError, dotted_segments, to_dotted, to_pointer
from dialect.spelling import JSON_CONTENT_TYPE, spelled
from dialect.throttle import Buckets, Meter, http_date_after
from dialect.timestamps import to_dialect, to_reference

REFERENCE = "a" * 64


def test_hash_table_turns_issued_hashes_back_and_refuses_unissued_ones() -> None:
    table = HashTable()
    mine = table.issue(REFERENCE)
    assert len(mine) == 40 and mine == dialect_hash(REFERENCE) != REFERENCE[:40]
    assert table.reference(mine) == REFERENCE
    assert table.reference(REFERENCE) == UNKNOWN_PREFIX + REFERENCE  # refserver's own: no match
    assert table.if_none_match(f'"{mine}"') == f'"{REFERENCE}"'
    assert table.if_none_match(f'W/"{mine}", "x"') == f'W/"{REFERENCE}", "{UNKNOWN_PREFIX}x"'
    assert table.if_none_match("*") == "*"
    assert strong_tag(f'"{mine}"') == mine
    assert strong_tag(f'W/"{mine}"') is None and strong_tag(mine) is None


@pytest.mark.parametrize(
    ("pointer", "dotted"),
    [
        ("", ""),
        ("/economy/secretSeed", "economy.secretSeed"),
        ("/a.b/c~1d/e~0f", "a\\.b.c/d.e~f"),
        ("/back\\slash", "back\\\\slash"),
        ("/a//b", "a..b"),
        ("/0/1", "0.1"),
    ],
)
def test_pointer_and_dotted_spell_the_same_path(pointer: str, dotted: str) -> None:
    assert to_dotted(pointer) == dotted
    assert to_pointer(dotted) == pointer


def test_malformed_paths_are_refused() -> None:
    with pytest.raises(PathError):
        to_dotted("no-slash")
    with pytest.raises(PathError):
        dotted_segments("trailing\\")
    with pytest.raises(PathError):
        dotted_segments("bad\\escape")
    with pytest.raises(PathError):
        to_dotted("/")  # one empty key would read as the root


def test_json_patch_changesets_become_segment_ops_and_read_back_as_written() -> None:
    written = [
        {"op": "add", "path": "/economy/gold", "value": 5},
        {"op": "replace", "path": "/a~1b", "value": {"x": 1}},
        {"op": "remove", "path": "/old"},
        {"op": "add", "path": "/list/-", "value": 3},
    ]
    stored = to_segments(written)
    assert [(o["op"], o["path"], o.get("value")) for o in stored] == [
        ("set", ["economy", "gold"], 5),
        ("set", ["a/b"], {"x": 1}),
        ("delete", ["old"], None),
        ("add", ["list"], 3),
    ]
    assert to_json_patch(stored) == written


def test_segment_ops_without_the_original_read_as_json_patch() -> None:
    stored = [{"op": "set", "path": ["a", "b"], "value": 1}, {"op": "delete", "path": ["c"]}]
    assert to_json_patch(stored) == [
        {"op": "add", "path": "/a/b", "value": 1},
        {"op": "remove", "path": "/c"},
    ]


@pytest.mark.parametrize(
    "changeset",
    [
        {"op": "add"},
        [{"op": "move", "from": "/a", "path": "/b"}],
        [{"op": "add", "path": ["a"], "value": 1}],
        [{"op": "add", "path": "/a"}],
        [{"op": "remove", "path": ""}],
        [{"op": "remove", "path": "a"}],
    ],
)
def test_changesets_the_dialect_does_not_take_are_refused(changeset: object) -> None:
    with pytest.raises(ChangesetError):
        to_segments(changeset)


def test_offset_pages_slice_the_whole_list_read_through_cursors() -> None:
    pages = {None: ([1, 2, 3], "c1"), "c1": ([4, 5], "c2"), "c2": ([6], None)}
    asked: list[str | None] = []

    async def fetch(cursor: str | None) -> tuple[list[int], str | None]:
        asked.append(cursor)
        return pages[cursor]

    items = asyncio.run(whole_list(fetch))
    assert items == [1, 2, 3, 4, 5, 6] and asked == [None, "c1", "c2"]
    assert window("2", "0").of(items) == [1, 2]
    assert window("4", "4").of(items) == [5, 6]  # fewer than asked: the last page
    assert window(None, None) == Window(0, 10)
    for take, skip in (("0", None), ("21", None), ("x", None), (None, "-1"), ("01", None)):
        with pytest.raises(OffsetError):
            window(take, skip)


def test_a_refused_page_stops_the_read() -> None:
    async def fetch(cursor: str | None) -> None:
        return None

    assert asyncio.run(whole_list(fetch)) is None


def test_timestamps_carry_the_offset_and_fractions_both_ways() -> None:
    assert to_dialect("2026-11-27T03:31:55.123Z") == "2026-11-27T04:31:55.123000+01:00"
    assert to_reference("2026-11-27T04:31:55.123456+01:00") == "2026-11-27T03:31:55.123Z"
    assert to_reference("2031-01-02T00:00:00.000Z") == "2031-01-02T00:00:00.000Z"
    assert to_dialect("not a time") == "not a time"
    assert to_reference("2026-01-01T00:00:00") == "2026-01-01T00:00:00"  # no offset: as sent


def test_one_bucket_per_caller_with_the_declared_figures() -> None:
    now = [0.0]
    buckets = Buckets(3, 2.0, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [None, None, None]
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") is None  # another caller: its own bucket
    now[0] = 0.5
    assert buckets.take("a") is None


def test_the_meter_sheds_above_its_threshold_over_its_window() -> None:
    now = [0.0]
    meter = Meter(2.0, 2.0, clock=lambda: now[0])
    for _ in range(4):
        meter.hit()
    assert not meter.shedding()
    meter.hit()
    assert meter.shedding()
    now[0] = 2.5
    assert not meter.shedding()


def test_the_header_spellings_differ_from_refserver_and_keep_to_rfc_9110() -> None:
    answer = spelled(Response(200, {"etag": '"abc"', "content-type": "application/json"}, b"{}"))
    assert answer.headers == {"etag": 'W/"abc"', "content-type": JSON_CONTENT_TYPE}
    assert entity_tag(answer.headers["etag"]) == EntityTag(True, "abc")
    parsed = media_type(JSON_CONTENT_TYPE)
    assert isinstance(parsed, MediaType) and parsed.essence == "application/json"
    assert JSON_CONTENT_TYPE != "application/json"
    plain = Response(200, {"content-type": "text/plain"}, b"x")
    assert spelled(plain) == plain
    retry = http_date_after(1.5, now=lambda: 784111776.0)
    assert retry == "Sun, 06 Nov 1994 08:49:38 GMT"
    assert not isinstance(http_date(retry), Problem)
