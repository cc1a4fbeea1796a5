"""The types of JSON values the suite sends and reads: what a parsed body may hold, recursively.

``JsonValue`` is any value ``json.loads`` returns; ``JsonObject`` an object. Code that reads a
field narrows it (``isinstance``) before using it, so a target's odd body is a violation the
check names, not a crash of the suite.
"""

from __future__ import annotations

from typing import TypeAlias

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"
JsonArray: TypeAlias = "list[JsonValue]"


def objects_in(value: object) -> list[JsonObject]:
    """The object elements of ``value`` when it is an array; none when it is anything else (a
    check that expected objects then finds none and says so)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
