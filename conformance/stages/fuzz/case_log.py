"""The cases a fuzz run generated, as one digest, so two runs can be compared case for case.

The same seed against the same target gives the same digest, with the same code: Hypothesis
also draws constants from the source of the local modules it finds loaded (a source checkout's,
not those installed in site-packages), so changing a literal anywhere in them may change the
cases generated.

Each case is logged as the engine generated it, before the stage aims it at real objects
(``aiming``): the family it ran in, the operation, and the generated path parameters, query,
headers and body. What a target hands out differs per run (object ids, hashes, ETags, the names
the run created under its prefix); a stateful case carries such values through the contract's
links, so in a stateful case every value an answer of this run carried is replaced by a
placeholder (``<answered>``). A stateless case holds no answered value (the engine takes no data
from answers: ``schema.build_schema``) and is logged as generated.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from conformance.json_types import JsonValue

if TYPE_CHECKING:
    from schemathesis import Response
    from schemathesis.specs.openapi.schemas import OpenApiCase

PLACEHOLDER = "<answered>"
STATEFUL = "stateful"
# Header names the engine adds by itself (a per-case random id), never generated data.
ENGINE_HEADERS = ("x-schemathesis-",)
# Members of an answer whose values are the target's own per run: ids and hashes.
VOLATILE_SUFFIXES = ("id", "hash")


def _plain(value: object) -> JsonValue:
    """``value`` as JSON data (bytes and other objects by their text)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return repr(value)


def _harvest(value: object, into: set[str]) -> None:
    """Every id or hash member value of an answer body, as text."""
    if isinstance(value, dict):
        for key, member in value.items():
            if isinstance(member, int | str) and str(key).lower().endswith(VOLATILE_SUFFIXES):
                into.add(str(member))
            _harvest(member, into)
    elif isinstance(value, list):
        for member in value:
            _harvest(member, into)


def _normalised(value: JsonValue, answered: set[str]) -> JsonValue:
    if isinstance(value, dict):
        return {k: _normalised(v, answered) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v, answered) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    text = str(value)
    if text in answered:
        return PLACEHOLDER
    return value


@dataclass
class CaseLog:
    """The run's generated cases in order, one canonical JSON line each."""

    lines: list[str] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)  # values answers of this run carried

    def add(self, kind: str, operation_id: str, case: OpenApiCase) -> None:
        """Log one case as generated (call it before the stage aims the case)."""
        headers = {
            str(k).lower(): v
            for k, v in (case.headers or {}).items()
            if not str(k).lower().startswith(ENGINE_HEADERS)
        }
        entry: JsonValue = _plain(
            {
                "kind": kind,
                "operation": operation_id,
                "path": case.path_parameters or {},
                "query": case.query or {},
                "headers": headers,
                "body": getattr(case, "body", None) if _has_body(case) else None,
            }
        )
        if kind == STATEFUL:
            entry = _normalised(entry, self.answered)
        self.lines.append(json.dumps(entry, sort_keys=True, separators=(",", ":")))

    def answer(self, kind: str, response: Response, prefix: str) -> None:
        """Remember the values an answer carried (a stateful case may send them back)."""
        if kind != STATEFUL:
            return
        etag = response.headers.get("etag") or []
        self.answered.update(str(v) for v in etag)
        self.answered.update(v.strip('"') for v in etag if isinstance(v, str))
        try:
            body = json.loads(response.content) if response.content else None
        except ValueError:
            body = None
        _harvest(body, self.answered)
        if prefix:
            self.answered.update(_with_prefix(body, prefix))

    def digest(self) -> str:
        return hashlib.sha256("\n".join(self.lines).encode()).hexdigest()

    def details(self) -> dict[str, object]:
        return {"cases_logged": len(self.lines), "cases_digest": self.digest()}


def _has_body(case: OpenApiCase) -> bool:
    from schemathesis.core import NOT_SET

    return getattr(case, "body", NOT_SET) is not NOT_SET


def _with_prefix(value: object, prefix: str) -> set[str]:
    """Every string of an answer body that carries the run's prefix (a name it created)."""
    if isinstance(value, str):
        return {value} if prefix in value else set()
    if isinstance(value, dict):
        return {s for member in value.values() for s in _with_prefix(member, prefix)}
    if isinstance(value, list):
        return {s for member in value for s in _with_prefix(member, prefix)}
    return set()
