"""Variants that combine many changes at once, judged on every requirement: several choices of
this catalogue together (undeclared, then declared), and the first dialect whole."""

from __future__ import annotations

from typing import Any

from dialect.profile import declared as dialect_declared
from dialect.server import REFERENCE_OFF, Dialect
from faulty.asgi import Handler

from tests.support.profiles import merged
from variants import names, payloads, spelling, statuses
from variants.rewrite import chained
from variants.variant import ALL, Variant

# The first part sees the client's request first and the answer last: the error fields are
# renamed last, after the parts that recognise an error answer by the reference's field names.
PARTS = (
    "error-code-field-code",
    "error-message-field-detail",
    "create-status-200",
    "experiment-create-status-200",
    "malformed-400-validation-422",
    "foreign-project-404",
    "not-found-410",
    "timestamps-offset-microseconds",
    "etag-weak",
    "content-type-case-charset",
    "retry-after-http-date",
)


def _parts() -> tuple[Variant, ...]:
    every = {
        v.name: v
        for v in (*statuses.VARIANTS, *names.VARIANTS, *payloads.VARIANTS, *spelling.VARIANTS)
    }
    return tuple(every[n] for n in PARTS)


def _values() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in _parts():
        declared = {
            v.name: v for v in (*statuses.VARIANTS, *names.VARIANTS, *payloads.VARIANTS)
        }.get(part.name + "-declared")
        if declared is not None:
            out = merged(out, declared.declare)  # type: ignore[arg-type]
    return out


def _dialect() -> Handler:
    return Dialect()


def variants() -> tuple[Variant, ...]:
    parts = _parts()
    make = chained(*(p.make for p in parts))
    keeps = frozenset().union(*(p.keeps for p in parts))
    values = _values()
    doc = "eleven choices of this catalogue at once: " + ", ".join(PARTS)
    return (
        Variant(
            "combined-eleven",
            doc,
            keeps,
            make,
            differences=frozenset().union(*(p.differences for p in parts)),
            requirements=ALL,
        ),
        Variant(
            "combined-eleven-declared",
            doc + " (declared)",
            keeps,
            make,
            declare=values,
            requirements=ALL,
        ),
        Variant(
            "dialect-whole",
            "the first dialect (tests/dialect): every gap filled differently, every choice "
            "declared",
            keeps,
            _dialect,
            declare=dialect_declared(),
            requirements=ALL,
            settings=REFERENCE_OFF,
        ),
    )


VARIANTS: tuple[Variant, ...] = variants()
