"""The catalogue of correct-but-different servers, assembled from its sections."""

from __future__ import annotations

from variants import (
    combined,
    limits,
    management_statements,
    names,
    payloads,
    spelling,
    statements,
    statuses,
    syntax,
    unkeyed,
)
from variants.variant import Variant

VARIANTS: tuple[Variant, ...] = (
    *statuses.VARIANTS,
    *names.VARIANTS,
    *syntax.VARIANTS,
    *payloads.VARIANTS,
    *spelling.VARIANTS,
    *limits.VARIANTS,
    *unkeyed.VARIANTS,
    *statements.VARIANTS,
    *management_statements.VARIANTS,
    *combined.VARIANTS,
)
BY_NAME = {v.name: v for v in VARIANTS}
assert len(BY_NAME) == len(VARIANTS), "variant names are unique"
