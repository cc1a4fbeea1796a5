"""What the configuration patch scenarios share: the base document, the RFC 6902 oracle, and
reading a patch's result back from the record and from the SDK.

``test_configuration_patch`` judges what a patch makes of a document, ``..._conflicts`` what a
target must refuse; both start from ``BASE``, compare with ``oracle`` and ``order`` (key order,
which dict equality ignores), and read the stored document with ``stored``. ``base_token`` is
the base a patch names for a record (``bodies.patch.base_token_source``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

import jsonpatch

from conformance.checks import conventions, expect, json_object, violation
from conformance.drivers.management import Configurations
from conformance.drivers.sdk import Snapshots
from conformance.json_types import JsonObject, JsonValue
from conformance.traffic.transcript import Reply

BASE: JsonObject = {
    "economy": {"coins": 100, "gems": 5, "shop": ["sword", "shield", "potion"]},
    "a/b": "slash",
    "m~n": "tilde",
    "flags": {"night": False, "event": None},
    "list": [1, 2, 3, 4],
}


# Each case: requirement id, name, starting document, operations. The oracle gives the result.
def oracle(document: JsonValue, operations: Sequence[Mapping[str, object]]) -> JsonValue:
    """The document as RFC 6902 (the jsonpatch library) applies ``operations`` to it."""
    applied: JsonValue = jsonpatch.apply_patch(copy.deepcopy(document), operations)
    return applied


def order(value: object) -> object:
    """Key order of every object, as nested lists (dict equality ignores order)."""
    if isinstance(value, dict):
        return [[k, order(v)] for k, v in value.items()]
    if isinstance(value, list):
        return [order(v) for v in value]
    return value


def content_of(reply: Reply, ids: tuple[str, ...]) -> JsonValue:
    """The ``configuration`` (the content) of the record a reply carries."""
    return json_object(reply, ids, "a configuration record").get("configuration")


def expect_2xx(reply: Reply, ids: tuple[str, ...], title: str) -> None:
    expect(200 <= reply.status < 300, ids, title, "HTTP 2xx", reply.describe(), reply)


def expect_refused(
    reply: Reply, ids: tuple[str, ...], title: str, statuses: tuple[int, ...] = ()
) -> None:
    ok = reply.status in statuses if statuses else 400 <= reply.status < 500
    wanted = " or ".join(map(str, statuses)) if statuses else "a 4xx"
    expect(ok, ids, title, f"HTTP {wanted}", reply.describe(), reply)


def stored(
    configurations: Configurations,
    snapshots: Snapshots,
    record: Mapping[str, object],
    ids: tuple[str, ...],
) -> JsonValue:
    """The document the SDK serves for ``record``, from its environment's bootstrap."""
    environment = alias_of(snapshots, configurations.environment_of(record), ids)
    documents = snapshots.documents(environment, ids)
    expect(
        record["id"] in documents,
        ids,
        "a configuration the target created is not listed in its environment's bootstrap",
        f"configuration {record['id']} listed in the {environment} bootstrap snapshot",
        f"listed ids {sorted(documents, key=str)[:10]}",
    )
    return documents[record["id"]]


def alias_of(snapshots: Snapshots, environment_id: object, ids: tuple[str, ...]) -> str:
    """The alias of the environment a record names (a violation when the project has none)."""
    environments = snapshots.profile.project.environments
    for alias, number in environments.items():
        if number == environment_id:
            return alias
    raise violation(
        ids,
        "a configuration record names an environment it was not created in",
        f"environmentId one of {sorted(environments.values())} (the environment_id it was "
        "created with, spec 2.1)",
        f"environmentId {environment_id!r}",
    )


def base_token(
    configurations: Configurations,
    record: Mapping[str, object],
    ids: tuple[str, ...],
    reply: Reply | None = None,
) -> JsonValue:
    """The base a patch names for ``record`` (a create or patch answer): the value of its field
    ``bodies.patch.base_token_source``. What names a patch's base is not shown (spec 2.3, 4.1
    "a stale base"): a record without the field fails ``ids`` when the field is declared, and
    is a drop-in difference the test cannot go past when it is the convention (contentHash)."""
    key = "bodies.patch.base_token_source"
    field = configurations.profile.bodies.patch.base_token_source
    token = record.get(field)
    if token is not None:
        return token  # type: ignore[return-value]
    title = "the configuration record carries no base token"
    received = f"no field {field!r} (fields: {sorted(record)[:12]})"
    if not configurations.profile.declares(key):
        raise conventions.miss(ids, key, field, received, title, reply)
    raise violation(ids, title, f"a field {field!r} (profile {key})", received, reply)
