"""The space of validators a conditional status request can carry, sampled, by what a correct
target answers (spec 4.3 responses 2: 304 only when If-None-Match or ``?hash=`` equals the
current snapshot hash; RFC 9110 13.1.2: If-None-Match matches when one of its entity-tags
matches by the weak comparison, or when it is ``*``).

Each sample is ``(label, value)``: ``value`` is what goes in ``?hash=`` (a near miss) or the
whole If-None-Match field value (a form). Near misses of a hash are never the hash: a target
that answers them 304 compares loosely (a prefix, a case-folded or truncated value).
"""

from __future__ import annotations

Sample = tuple[str, str]


def _other(character: str) -> str:
    return "1" if character == "0" else "0"


def near_misses(current: str) -> list[Sample]:
    """Values that differ from ``current`` by little: one character changed (first, middle,
    last), a prefix, ``current`` with a suffix, ``current`` in another case. Never empty, never
    ``current``."""
    middle = len(current) // 2
    changed = current[:middle] + _other(current[middle : middle + 1]) + current[middle + 1 :]
    samples: list[Sample] = [
        ("first character changed", _other(current[:1]) + current[1:]),
        ("middle character changed", changed),
        ("last character changed", current[:-1] + _other(current[-1:])),
        ("with a suffix", current + "0"),
        ("with a word appended", current + "-old"),
    ]
    if len(current) >= 2:
        samples.append(("all but the last character", current[:-1]))
    if len(current) >= 4:
        samples.append(("its first half", current[: len(current) // 2]))
    for label, cased in (("upper case", current.upper()), ("lower case", current.lower())):
        if cased != current:
            samples.append((label, cased))
    seen: set[str] = set()
    kept: list[Sample] = []
    for label, value in samples:
        if value and value != current and value not in seen:
            seen.add(value)
            kept.append((label, value))
    return kept


def quoted(value: str) -> str:
    """A strong entity-tag of ``value``."""
    return f'"{value}"'


def matching_forms(current: str) -> list[Sample]:
    """If-None-Match field values other than the single quoted tag that match ``current`` under
    RFC 9110: lists holding its tag (first, last, inside, without spaces), ``*``, a weak tag."""
    tag = quoted(current)
    return [
        ("a list ending with the tag", f'"other", {tag}'),
        ("a list starting with the tag", f'{tag}, "other"'),
        ("a list without spaces", f'"a",{tag},"b"'),
        ("*", "*"),
        ("a weak tag", f"W/{tag}"),
        ("a list holding a weak tag", f'"other", W/{tag}'),
    ]


def lists_without(current: str) -> list[Sample]:
    """If-None-Match lists that do not hold ``current``'s tag, weak or strong: under RFC 9110 none
    of them matches, whatever a target's profile says of lists."""
    misses = [value for _, value in near_misses(current)]  # at least three
    return [
        ("two near misses", f"{quoted(misses[0])}, {quoted(misses[-1])}"),
        (
            "tags holding the hash with more around it",
            f"{quoted(current + 'x')}, {quoted('x' + current)}",
        ),
        ("a weak near miss and another", f"W/{quoted(misses[-1])}, {quoted(misses[1])}"),
        ("unrelated tags", '"other", "another"'),
    ]
