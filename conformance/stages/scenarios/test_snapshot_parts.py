"""Scenarios: the parts of a snapshot that can change (spec 2.4), each judged over its space.

A configuration's hash must move when any part of its content changes, wherever that part sits
(a member at depth, an array element, a member of an object inside an array, a string with
non-ASCII text, a value's JSON type); a summary lists the name and alias as the record stores
them, whatever their length or script. The changes and the names are tables: each row is one
point of the space, sent to the target in turn.
"""

from __future__ import annotations

import pytest

from conformance.checks import IndependentChecks, expect
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots, configuration_entries, entry_of
from conformance.json_types import JsonObject
from conformance.oracles.json_equality import same_json

requirement = pytest.mark.requirement

BASE: JsonObject = {
    "v": 1,
    "nested": {"inner": {"leaf": 1, "text": "a"}},
    "list": [1, {"deep": True}],
    "label": "plain",
}
# (the part that changes, the one-operation patch that changes it), applied in this order
CHANGES: tuple[tuple[str, list[JsonObject]], ...] = (
    ("a top-level member", [{"op": "replace", "path": "/v", "value": 2}]),
    ("a member at depth 3", [{"op": "replace", "path": "/nested/inner/leaf", "value": 2}]),
    ("a member added at depth 3", [{"op": "add", "path": "/nested/inner/extra", "value": "x"}]),
    ("a member removed at depth 3", [{"op": "remove", "path": "/nested/inner/text"}]),
    ("an array element", [{"op": "replace", "path": "/list/0", "value": 5}]),
    ("a member of an object in an array", [{"op": "replace", "path": "/list/1/deep", "value": 0}]),
    ("an element appended to an array", [{"op": "add", "path": "/list/-", "value": 3}]),
    ("a string to non-ASCII text", [{"op": "replace", "path": "/label", "value": "é 😀 名"}]),
    ("a value's JSON type (number to string)", [{"op": "replace", "path": "/v", "value": "2"}]),
    ("a nested object emptied", [{"op": "replace", "path": "/nested", "value": {}}]),
)


@requirement("SDK-STATUS-CONFIG-HASH-MOVES")
def test_config_hash_moves_with_every_part(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    """Each change of CHANGES, one patch at a time, moves the configuration's snapshot hash."""
    ids = ("SDK-STATUS-CONFIG-HASH-MOVES",)
    record = configurations.create_ok("parts", BASE, ids=ids)

    def current() -> object:
        entry = entry_of(snapshots.snapshot("development", ids), record["id"])
        expect(
            entry is not None,
            (),
            "a created configuration is not listed in the development snapshot",
            f"configuration {record['id']} listed (SDK-STATUS-LISTS-CONFIGURATIONS)",
            "not listed",
        )
        assert entry is not None
        return entry.get("hash")

    previous = current()
    with IndependentChecks() as independent:
        for part, operations in CHANGES:
            configurations.patch_ok(record["id"], operations, ids=ids)
            now = current()
            independent.check(
                not same_json(previous, now),
                ids,
                f"the configuration's hash did not move when {part} changed",
                f"a hash other than {previous!r} after {operations!r}",
                repr(now),
            )
            previous = now


# Name lengths (characters): the run prefix alone up to long names; a target's own bound on
# names (not stated by the spec) shows as a refused create, and that length is not judged.
NAME_LENGTHS = (40, 63, 64, 65, 100, 128, 200)
NAME_SCRIPTS = ("ünïcödé-名前", "emoji-😀-mixed", "Mixed Case With Spaces")


def _names(prefix: str) -> list[str]:
    """The name table: lengths, scripts, and names that collide (the same name again, and one
    that only case and spacing tell apart): a target that accepts both of a colliding pair
    must list both, however it derives aliases."""
    names = [(prefix + "-" + "n" * 300)[:length] for length in NAME_LENGTHS]
    names += [f"{prefix}-{text}" for text in NAME_SCRIPTS]
    names += [f"{prefix}-twin", f"{prefix}-twin", f"{prefix}-TWIN ".upper()]
    return [n for n in names if len(n) > len(prefix)]


@requirement("SDK-STATUS-LISTS-CONFIGURATIONS")
def test_summaries_carry_the_stored_name_and_alias(
    configurations: Configurations, snapshots: Snapshots
) -> None:
    """Every name of the table the target stores is listed once, with the record's name and
    alias, however long and in whatever script."""
    ids = ("SDK-STATUS-LISTS-CONFIGURATIONS",)
    created: list[JsonObject] = []
    for name in _names(configurations.client.name("named")):
        reply = configurations.create(body=configurations.create_body(name, {"n": 1}))
        if 200 <= reply.status < 300 and isinstance(body := reply.json(), dict):
            created.append(body)
    expect(
        bool(created),
        ids,
        "no configuration of the name table could be created",
        "at least the shortest name accepted",
        f"{len(_names(''))} names refused",
    )
    entries = configuration_entries(
        snapshots.snapshot("development", ids), ids, "the development snapshot"
    )
    with IndependentChecks() as independent:
        for record in created:
            matching = [e for e in entries if same_json(record.get("id"), e.get("id"))]
            shown = matching[0] if len(matching) == 1 else {}
            independent.check(
                len(matching) == 1
                and same_json(record.get("name"), shown.get("name"))
                and same_json(record.get("alias"), shown.get("alias")),
                ids,
                "a configuration is not listed once with its record's name and alias",
                f"one entry id={record.get('id')!r} name={record.get('name')!r} "
                f"alias={record.get('alias')!r}",
                repr(matching),
            )
