"""One request translated between the contract's names and a target's, both ways.

``Renamer.of(contract, profile)`` renames the header, query and body names of one operation's
request to the target's (``to_target=True``) or back to the contract's, and gives body values
the target's forms (or the contract's) on the way. The fuzz corpus keeps cases in the contract's
names and replays them in the run's; a captured request goes back to the contract's names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from conformance.contract.document import resolve
from conformance.contract.forms import FORMS
from conformance.contract.profile_keys import ENUM_VALUE, NAME, PATH_SYNTAX, Values, marks, rule_of
from conformance.contract.schema_walk import (
    body_schema,
    extra_of,
    items_of,
    operations_of,
    property_names_of,
    property_nodes,
    schema_chain,
)
from conformance.contract.specialisation import Specialiser
from conformance.json_types import JsonObject

if TYPE_CHECKING:
    from conformance.profile import Profile

V = TypeVar("V")


@dataclass(frozen=True)
class Renamer:
    """Header, query and body names of one request between the contract's and a target's."""

    contract: JsonObject
    values: Values

    @classmethod
    def of(cls, contract: JsonObject, profile: Profile) -> Renamer:
        return cls(contract, Values.of(profile))

    def parameter_names(self, operation_id: str, where: str, to_target: bool) -> dict[str, str]:
        """Lowercase parameter name on one side -> its name on the other, for ``where``."""
        names: dict[str, str] = {}
        for _p, _m, operation in operations_of(self.contract):
            if operation.get("operationId") != operation_id:
                continue
            entries = operation.get("parameters", [])
            for entry in entries if isinstance(entries, list) else ():
                parameter: object = resolve(self.contract, entry, strict=False)
                if not isinstance(parameter, dict) or parameter.get("in") != where:
                    continue
                ours = str(parameter["name"])
                theirs = ours
                for key in marks(parameter):
                    value = self.values.value(key)
                    if rule_of(key) == NAME and isinstance(value, str) and value:
                        theirs = value
                before, after = (ours, theirs) if to_target else (theirs, ours)
                names[before.lower()] = after
        return names

    def body(self, operation_id: str, body: object, to_target: bool) -> object:
        """A request body in the target's names (``to_target``) or back in the contract's."""
        operation = next(
            (
                op
                for _p, _m, op in operations_of(self.contract)
                if op["operationId"] == operation_id
            ),
            None,
        )
        schema = None if operation is None else body_schema(self.contract, operation)
        if schema is None:
            return body
        if to_target:
            return Specialiser(self.contract, self.values).instance(schema, body)
        return self._back(schema, body)

    def _back(self, schema: object, body: object) -> object:
        """The inverse walk: at each level, a target name maps back to the contract's and a
        value of the target's form to the contract's form."""
        body = self._form_back(schema, body)
        if isinstance(body, list):
            items = items_of(self.contract, schema)
            return body if items is None else [self._back(items, v) for v in body]
        if not isinstance(body, dict):
            return self._value_back(schema, body)
        properties = property_nodes(self.contract, schema)
        extra = extra_of(self.contract, schema)
        names = property_names_of(self.contract, schema)
        theirs = {self._target_name(name, node): name for name, node in properties.items()}
        out: dict[str, object] = {}
        for key, value in body.items():
            ours = str(theirs.get(key, key))
            if key not in theirs and names is not None:
                ours = str(self._value_back(names, key))
            node = properties.get(ours, extra) if key in theirs else extra
            out[ours] = value if node is None else self._back(node, value)
        return out

    def _target_name(self, name: str, node: object) -> str:
        return Specialiser(self.contract, self.values).name_of(name, node)

    def _value_back(self, schema: object, value: object) -> object:
        for node in schema_chain(self.contract, schema):
            for key in marks(node):
                if rule_of(key) == ENUM_VALUE and value == self.values.value(key):
                    return self.values.default(key)
                if rule_of(key) == PATH_SYNTAX:
                    return self._form_back(node, value)
        return value

    def _form_back(self, schema: object, value: object) -> object:
        for node in schema_chain(self.contract, schema):
            for key in marks(node):
                given = self.values.value(key)
                if key in FORMS and given in FORMS[key]:
                    return FORMS[key][given].back(value)
        return value

    def headers(self, operation_id: str, headers: Mapping[str, V], to_target: bool) -> dict[str, V]:
        names = self.parameter_names(operation_id, "header", to_target)
        return {names.get(k.lower(), k): v for k, v in headers.items()}

    def query(self, operation_id: str, query: Mapping[str, V], to_target: bool) -> dict[str, V]:
        names = self.parameter_names(operation_id, "query", to_target)
        return {names.get(k.lower(), k): v for k, v in query.items()}
