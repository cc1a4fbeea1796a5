"""The second dialect's choices where no profile key reaches, as data, and the keyed ones it
adds to the first dialect's (``dialect.choices``)."""

from __future__ import annotations

import re

# The active experiment's status word (experiment_payload.running; refserver: running).
RUNNING = "running"
ACTIVE_WORD = "live"

# Paths: the key-order sidecar's as JSON Pointers (bodies.path_syntax), the private paths dotted
# as the first dialect's (bodies.private_path_syntax).
SIDECAR_PATH_SYNTAX = "json-pointer"
PRIVATE_PATH_SYNTAX = "dotted"

# Page-number paging (experiment_payload.pagination: page): the page parameter, from 1.
PAGE_PARAM = "pageNo"

# Error codes in kebab-case: EXPERIMENT_NOT_FOUND -> experiment-not-found.
_SNAKE = re.compile(r"^[A-Z][A-Z0-9_]*$")


def kebab(code: str) -> str:
    """An UPPER_SNAKE code in the second dialect's spelling (any other code unchanged)."""
    return code.lower().replace("_", "-") if _SNAKE.fullmatch(code) else code


# The reference's fields that no key names and the specification's tables do not list, by
# record (names as the first dialect answers them): the second dialect sends none of them.
EXPERIMENT_EXTRAS = (
    "applicationId",
    "environmentId",
    "rollout",
    "createdAt",
    "updatedAt",
    "terminatedAt",
)
SUMMARY_EXTRAS = ("rollout", "status", "createdAt", "updatedAt", "terminatedAt")
ASSIGNMENT_EXTRAS = ("source", "assignmentVersion", "assignedAt", "updatedAt", "configurationId")
CONTEXT_PROPERTY_EXTRAS = ("seenCount", "lastSeenAt")
BOOTSTRAP_ENTRY_EXTRAS = ("privacy",)

# The numeric header: any JSON-style decimal number in (0, 9007199254740991] (spec 4.3).
NUMERIC_MAX = 9007199254740991
NUMERIC = re.compile(r"(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
