"""Which experiment list a path is, and the next page an RFC 8288 ``Link`` header names.

``list_name`` gives the name ``experiment_payload.paged_lists`` uses for a list's path suffix;
``next_link`` reads ``Link: <...>; rel="next"`` (RFC 8288 section 3) and gives the query of the
target it names, so the driver asks the same list for it (``experiment_payload.pagination:
link``).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from conformance.traffic.transcript import Reply

LIST_NAMES: dict[str, str] = {
    "": "experiments",
    "/analytics-catalog": "analytics-catalog",
    "/assignment-counts": "assignment-counts",
    "/context-properties": "context-properties",
}
_PER_EXPERIMENT = re.compile(r"^/[^/]+/(assignments|members)$")
# one link-value: <target> then parameters (RFC 8288 section 3); a quoted value may hold ; or ,
_LINK = re.compile(r'<([^>]*)>((?:\s*;\s*[^;,=\s]+\s*(?:=\s*(?:"[^"]*"|[^;,\s]*))?)*)')
_PARAM = re.compile(r';\s*([^;,=\s]+)\s*(?:=\s*("[^"]*"|[^;,\s]*))?')


def list_name(suffix: str) -> str:
    """The ``paged_lists`` name of the list at ``suffix`` (after ``/experiments``)."""
    if suffix in LIST_NAMES:
        return LIST_NAMES[suffix]
    match = _PER_EXPERIMENT.match(suffix)
    return match.group(1) if match else suffix


def next_link(reply: Reply) -> tuple[str, list[tuple[str, str]]] | None:
    """(path, query pairs) of the link whose ``rel`` holds ``next``, or None (the last page).
    Relation types compare case-insensitively and ``rel`` may list several (RFC 8288 3.3)."""
    for name, value in reply.headers.items():
        if name.lower() != "link":
            continue
        for target, params in _LINK.findall(value):
            for key, raw in _PARAM.findall(params):
                relations = raw.strip('"').lower().split()
                if key.lower() == "rel" and "next" in relations:
                    parts = urlsplit(target)
                    return parts.path, parse_qsl(parts.query, keep_blank_values=True)
    return None
