"""The level of each constraint of the contract for one target: interface, drop-in, or a doubt.

A constraint is one schema keyword of one element (a ``required`` member, a ``type``, a
``pattern``, an ``enum``, a bound, ...), or one of the element kinds below: ``status`` (the
statuses an operation documents), ``media`` (the JSON media type of an answer), ``value`` (a
parameter's or body field's value constraints as a whole, judged by a refusal), ``media-type``
(that JSON media type is ``application/json`` exactly, not another JSON type such as
``application/problem+json``: stated only where the specification names the type). Its level, given
the chain of elements from it up to its operation (``document.chain_of``, innermost first):

1. a keyword mark anywhere on the chain, innermost first: ``x-stated: [keyword, ...]`` (the
   specification states it, e.g. the JSON media type of every answer of 4.1 and 4.3) is
   interface; ``x-drop-in: [keyword, ...]`` (a production convention no key expresses, e.g. the
   error code's spelling) is drop-in;
2. else the innermost element that speaks: ``x-level: drop-in`` (an unkeyed convention, the
   whole element); an ``x-profile-key`` whose rule covers the keyword (``COVERS``: a property
   name key covers the property's presence and type, not its value's pattern nor its children;
   only a structural form's key covers what is inside its element) is interface when
   the profile declares every such key (``Profile.declares``), else drop-in naming the keys left
   at their default; ``x-spec: stated`` is interface; ``x-spec: not-shown`` is an unkeyed
   convention; ``x-spec: inferred`` is a doubt (the contract inferred it: the inference is what
   a failure puts in doubt);
3. no mark on the way: the specification shows it, interface.

An unkeyed convention is drop-in, and interface for a profile that says ``conventions:
production`` (it declares the production conventions, keyed or not). ``constraints`` walks every
constraint of a document (the figures of ``conformance contract --levels``);
``interface_document`` drops the drop-in schema constraints from a document.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.contract.document import resolve
from conformance.contract.profile_keys import (
    ENUM,
    ENUM_VALUE,
    MAX_ITEMS,
    MAXIMUM,
    NAME,
    PAGINATION,
    PROPERTY,
    STATUS,
    marks,
    rule_of,
)
from conformance.contract.schema_walk import operations_of
from conformance.json_types import JsonObject

if TYPE_CHECKING:
    from conformance.profile import Profile

INTERFACE, DROP_IN, DOUBT = "interface", "drop-in", "doubt"
STATED_KEYWORDS, DROP_IN_KEYWORDS, LEVEL_MARK = "x-stated", "x-drop-in", "x-level"
STATUS_KEYWORD, MEDIA_KEYWORD, VALUE_KEYWORD, REQUIRED = "status", "media", "value", "required"
MEDIA_TYPE_KEYWORD = "media-type"  # application/json exactly, beside any JSON media type (media)
ANY = "*"
# What a key of each rule declares, as constraint keywords (ANY: everything in its element).
COVERS: dict[str, frozenset[str]] = {
    NAME: frozenset({REQUIRED}),
    PROPERTY: frozenset({REQUIRED, "type"}),
    STATUS: frozenset({STATUS_KEYWORD}),
    ENUM: frozenset({"enum"}),
    ENUM_VALUE: frozenset({"enum"}),
    MAXIMUM: frozenset({"maximum"}),
    MAX_ITEMS: frozenset({"maxItems"}),
    # the paging form says which parameter a list takes, not which of its values are refused
    # (an empty cursor read as "from the start" keeps every word of the spec)
    PAGINATION: frozenset({REQUIRED, "type"}),
}
# Schema keywords that constrain an instance (annotations and structure are not constraints).
SCHEMA_KEYWORDS = (
    "type",
    "enum",
    "const",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "additionalProperties",
)
Node = dict[str, object]


@dataclass(frozen=True)
class Level:
    """A constraint's level for one target: ``keys`` a drop-in one rests on (none: a convention
    no key expresses), ``doubt`` the mark of a doubt (``inferred``)."""

    level: str  # INTERFACE | DROP_IN | DOUBT
    keys: tuple[str, ...] = ()
    doubt: str | None = None


def _covers(key: str, keyword: str) -> bool:
    kind = rule_of(key)
    if kind is None:
        return False
    covered = COVERS.get(kind)
    return covered is None or keyword in covered  # a structural form covers its whole element


def _reaches_inside(key: str) -> bool:
    """Whether a key on an element also declares what is inside it (its schema): a structural
    form does (for the keywords it covers), a name or a bound does not."""
    kind = rule_of(key)
    return kind not in COVERS or kind == PAGINATION


def _listed(node: Node, mark: str, keyword: str) -> bool:
    given = node.get(mark)
    return isinstance(given, list) and (keyword in given or ANY in given)


def level_of(chain: list[Node], keyword: str, profile: Profile) -> Level:
    """The level of the ``keyword`` constraint of the element ``chain`` leads up from."""
    unkeyed = Level(INTERFACE if profile.conventions == "production" else DROP_IN)
    for node in chain:
        if _listed(node, STATED_KEYWORDS, keyword):
            return Level(INTERFACE)
        if _listed(node, DROP_IN_KEYWORDS, keyword):
            return unkeyed
    own = 2 if chain and "$ref" in chain[0] else 1  # the element itself (and what it refers to)
    for index, node in enumerate(chain):
        if node.get(LEVEL_MARK) == DROP_IN:
            return unkeyed
        # A key declares its own element (a name, an enum, a bound); only a structural form's
        # key also declares what is inside it: a field's name is not its children's presence.
        keys = [
            key
            for key in marks(node)
            if _covers(key, keyword) and (index < own or _reaches_inside(key))
        ]
        if keys:
            left = tuple(key for key in keys if not profile.declares(key))
            return Level(DROP_IN, left) if left else Level(INTERFACE)
        spec = node.get("x-spec")
        if spec == "stated":
            return Level(INTERFACE)
        if spec == "not-shown":
            return unkeyed
        if spec == "inferred":
            return Level(DOUBT, doubt="inferred")
    return Level(INTERFACE)


def status_level(operation: Node, document: JsonObject, profile: Profile) -> Level:
    """The level of the statuses an operation documents: the keys that set them (an undeclared
    one: drop-in), else the operation's own mark."""
    responses = operation.get("responses")
    keys: list[str] = []
    for response in responses.values() if isinstance(responses, dict) else ():
        for node in (response, resolve(document, response, strict=False)):
            keys += [k for k in marks(node) if rule_of(k) == STATUS and k not in keys]
    left = tuple(key for key in keys if not profile.declares(key))
    if left:
        return Level(DROP_IN, left)
    return level_of([operation], STATUS_KEYWORD, profile)


# ------------------------------------------------------------------ every constraint


@dataclass(frozen=True)
class Constraint:
    """One constraint of one operation: the keyword, the member (a ``required`` name), where it
    sits (``holder``: the node that carries the keyword) and the chain up to the operation."""

    operation_id: str
    keyword: str
    member: str
    holder: Node
    chain: tuple[Node, ...]


def _with_target(document: JsonObject, node: object) -> list[Node]:
    if not isinstance(node, dict):
        return []
    resolved = resolve(document, node, strict=False)
    return [node, resolved] if resolved is not node and isinstance(resolved, dict) else [node]


def _schema(
    document: JsonObject, op: str, node: object, up: list[Node], seen: frozenset[int]
) -> Iterator[Constraint]:
    hops = _with_target(document, node)
    if not hops or id(hops[-1]) in seen:
        return
    schema, chain = hops[-1], [*hops, *up]
    seen = seen | {id(schema)}
    for keyword in SCHEMA_KEYWORDS:
        if keyword in schema and not isinstance(schema.get(keyword), dict):
            yield Constraint(op, keyword, "", schema, tuple(chain))
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get(REQUIRED)
    for name in required if isinstance(required, list) else ():
        below = _with_target(document, properties.get(name)) or []
        yield Constraint(op, REQUIRED, str(name), schema, tuple([*below, *chain]))
    children: list[object] = list(properties.values())
    for key in ("items", "additionalProperties", "propertyNames"):
        if isinstance(schema.get(key), dict):
            children.append(schema[key])
    for combinator in ("allOf", "oneOf", "anyOf"):
        branches = schema.get(combinator)
        children += branches if isinstance(branches, list) else []
    for child in children:
        yield from _schema(document, op, child, chain, seen)


def constraints(document: JsonObject) -> Iterator[Constraint]:
    """Every constraint of every operation of ``document`` (a shared component once per
    operation that uses it)."""
    for _path, _method, operation in operations_of(document):
        op = str(operation["operationId"])
        parameters = operation.get("parameters")
        for entry in parameters if isinstance(parameters, list) else ():
            parameter = resolve(document, entry, strict=False)
            if not isinstance(parameter, dict):
                continue
            up = [parameter, operation]
            if parameter.get(REQUIRED):
                yield Constraint(op, REQUIRED, str(parameter.get("name")), parameter, tuple(up))
            if "schema" in parameter:
                yield from _schema(document, op, parameter["schema"], up, frozenset())
        yield Constraint(op, STATUS_KEYWORD, "", operation, (operation,))
        responses = operation.get("responses")
        for response in responses.values() if isinstance(responses, dict) else ():
            resolved = resolve(document, response, strict=False)
            if not isinstance(resolved, dict):
                continue
            up = [resolved, operation]
            headers = resolved.get("headers")
            for name, header in headers.items() if isinstance(headers, dict) else ():
                target = resolve(document, header, strict=False)
                if isinstance(target, dict):
                    yield Constraint(op, REQUIRED, str(name), target, tuple([target, *up]))
                    if "schema" in target:
                        yield from _schema(
                            document, op, target["schema"], [target, *up], frozenset()
                        )
            content = resolved.get("content")
            media = content.get("application/json") if isinstance(content, dict) else None
            if isinstance(media, dict):
                yield Constraint(op, MEDIA_KEYWORD, "", media, (media, *up))
                if "schema" in media:
                    yield from _schema(document, op, media["schema"], [media, *up], frozenset())


def constraint_level(constraint: Constraint, document: JsonObject, profile: Profile) -> Level:
    if constraint.keyword == STATUS_KEYWORD:
        return status_level(constraint.holder, document, profile)
    return level_of(list(constraint.chain), constraint.keyword, profile)


def level_counts(document: JsonObject, profile: Profile) -> Counter[str]:
    """How many constraints (per operation that uses them) are at each level."""
    return Counter(constraint_level(c, document, profile).level for c in constraints(document))


def interface_document(document: JsonObject, profile: Profile) -> JsonObject:
    """A copy of ``document`` without the schema constraints that are drop-in for ``profile``
    wherever they are used (a ``required`` member, a ``pattern``, an ``enum``, ...): the
    interface constraints plus what the profile declares. Statuses and media types stay."""
    copied = copy.deepcopy(document)
    levels: dict[tuple[int, str, str], set[str]] = {}
    holders: dict[int, Node] = {}
    for found in constraints(copied):
        if found.keyword in (STATUS_KEYWORD, MEDIA_KEYWORD) or found.holder.get("in"):
            continue
        where = (id(found.holder), found.keyword, found.member)
        holders[id(found.holder)] = found.holder
        levels.setdefault(where, set()).add(constraint_level(found, copied, profile).level)
    for (holder_id, keyword, member), seen in levels.items():
        if seen != {DROP_IN}:
            continue
        holder = holders[holder_id]
        members = holder.get(REQUIRED)
        if keyword == REQUIRED and isinstance(members, list):
            holder[REQUIRED] = [name for name in members if name != member]
            if not holder[REQUIRED]:
                del holder[REQUIRED]
        elif keyword != REQUIRED:
            holder.pop(keyword, None)
    return copied
