"""The numeric header's value (spec 4.3: a number in 0 < value <= 2^53-1) as a grammar reads it.

The spec says "number" and gives the bounds; how the number is spelled in a header is not shown.
A grammar is a profile's ``headers.numeric_grammar``: ``decimal-digits`` (ASCII digits only, the
production convention) or ``javascript-number`` (what JavaScript's ``Number()`` reads). Other
readers a correct server may use are listed in ``READERS`` so that the interface level refuses
only what no reader takes for an in-bounds number: 0, negatives, values past 2^53-1, NaN,
Infinity and text stay refused whatever the grammar; ``+5``, ``0x10`` or ``1_000`` are the
grammar's choice.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

MAX_SAFE = 9007199254740991  # 2^53 - 1, the spec's upper bound
DECIMAL_DIGITS = "decimal-digits"
JAVASCRIPT_NUMBER = "javascript-number"

_DIGITS = re.compile(r"[0-9]+")
# ECMAScript StringNumericLiteral (ES2023 7.1.4.1.1), whitespace trimmed first.
_JS_PREFIXED = re.compile(r"0([xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_JS_DECIMAL = re.compile(r"[+-]?(Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)")
_JS_SPACE = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
_JS_SPACE += "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# Python's int(): an optional sign, digits with single underscores between them, around spaces.
_PY_INT = re.compile(r"[+-]?[0-9](_?[0-9])*")


def decimal_digits(text: str) -> float | None:
    """ASCII decimal digits, nothing else."""
    return float(int(text)) if _DIGITS.fullmatch(text) else None


def javascript_number(text: str) -> float | None:
    """What ``Number(text)`` gives in JavaScript (None for NaN; ``""`` is 0)."""
    body = text.strip(_JS_SPACE)
    if body == "":
        return 0.0
    if _JS_PREFIXED.fullmatch(body):
        base = {"x": 16, "o": 8, "b": 2}[body[1].lower()]
        return float(int(body[2:], base))
    if _JS_DECIMAL.fullmatch(body):
        return float(body)
    return None


def python_int(text: str) -> float | None:
    """What Python's ``int(text)`` gives (a reader a correct Python server may well use)."""
    body = text.strip()
    return float(int(body)) if _PY_INT.fullmatch(body) else None


GRAMMARS: dict[str, Callable[[str], float | None]] = {
    DECIMAL_DIGITS: decimal_digits,
    JAVASCRIPT_NUMBER: javascript_number,
}
READERS: tuple[Callable[[str], float | None], ...] = (*GRAMMARS.values(), python_int)


def in_bounds(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and 0 < value <= MAX_SAFE


def reads_in_bounds(text: str, grammar: str) -> bool:
    """Whether ``grammar`` reads ``text`` as a number within the spec's bounds."""
    return in_bounds(GRAMMARS[grammar](text))


def some_reader_takes(text: str) -> bool:
    """Whether any reader of ``READERS`` takes ``text`` for an in-bounds number: when none
    does, refusing it is the interface's demand, whatever grammar a profile declares."""
    return any(in_bounds(read(text)) for read in READERS)
