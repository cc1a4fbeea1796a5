"""What each requirement rests on: the specification's words (``rests_on.spec``) or a profile key.

A ``stated`` entry quotes the section it names, and that quote is in the specification; it pins
no status the specification does not give and names no header or field that only a profile key
supplies. No id or text names a status a profile key can change without naming the key. Every
key an entry lists exists in ``profile.schema.json``. Each guard is a function returning its
problems, so that the tests below prove it on a planted bad entry as well as on the catalogue.

The specification is read from ``RCES_SPEC`` or ``/work/shared/spec/interface-specification.md``;
where neither is readable (a CI checkout without it), the tests that need it are skipped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from functools import cache
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.catalogue.requirements import (
    Catalogue,
    Requirement,
    current_baseline,
    load_catalogue,
    parse_catalogue,
)

SPEC_ENV = "RCES_SPEC"
DEFAULT_SPEC = Path("/work/shared/spec/interface-specification.md")

# The statuses the specification gives, read from its own words by ``stated_statuses`` (checked
# here so that a change to the extractor or to the specification is seen).
SPEC_STATUSES = frozenset({200, 304, 403, 409})

# A status a profile key is commonly set to beside its default: a validation failure answered
# 422 instead of the observed 400 (observed-conventions.md: "No 422 was seen").
ALTERNATIVE_KEY_STATUSES = frozenset({422})

# Sections of the profile whose keys name what the specification does not show.
NAME_SECTIONS = ("headers", "bodies", "errors", "experiment_payload", "bootstrap_payload")
NAME_DEFS = frozenset({"headerName", "fieldName", "queryName", "statusValue"})

STATUS_TOKEN = re.compile(r"(?<![\w.-])([1-5]\d\d)(?![\w-])")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.MULTILINE)
DOTTED = re.compile(r"\b[a-z_]+(?:\.[a-z_][a-z0-9_]*)+\b")


# ------------------------------------------------------------------ sources


def spec_path() -> Path:
    given = os.environ.get(SPEC_ENV, "")
    return Path(given) if given else DEFAULT_SPEC


@cache
def spec_text() -> str | None:
    try:
        return spec_path().read_text(encoding="utf-8")
    except OSError:
        return None


@pytest.fixture
def spec() -> str:
    text = spec_text()
    if text is None:
        pytest.skip(
            f"the interface specification is not readable at {spec_path()} "
            f"(set {SPEC_ENV} to its path to run the quote and status checks)"
        )
    return text


@cache
def profile_schema() -> dict[str, Any]:
    raw = resources.files("conformance.profile").joinpath("profile.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(raw)
    return loaded


def _raw_catalogue() -> dict[str, Any]:
    raw = resources.files("conformance.catalogue").joinpath("requirements.yaml").read_bytes()
    data: dict[str, Any] = yaml.safe_load(raw)
    return data


def normalised(text: str) -> str:
    """Markdown reduced to its words: no backticks, table bars as spaces, single spaces."""
    return " ".join(text.replace("`", "").replace("|", " ").split())


def sections(spec: str) -> dict[str, str]:
    """Section number -> its text (heading included), up to the next heading of level 2 or 3."""
    marks = list(HEADING.finditer(spec))
    return {
        mark.group(1): spec[mark.start() : marks[i + 1].start() if i + 1 < len(marks) else None]
        for i, mark in enumerate(marks)
    }


def statuses_in(text: str) -> set[int]:
    """The HTTP statuses (200-599) a text names as three-digit numbers."""
    found = {int(token) for token in STATUS_TOKEN.findall(text)}
    return {s for s in found if 200 <= s <= 599 and s in HTTPStatus._value2member_map_}


def stated_statuses(spec: str) -> frozenset[int]:
    return frozenset(statuses_in(spec))


def key_paths(properties: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every (dotted path, schema node) of the profile schema, sections and leaves."""
    for name, node in properties.items():
        yield prefix + name, node
        if "properties" in node:
            yield from key_paths(node["properties"], f"{prefix}{name}.")


def known_keys(schema: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(path for path, _ in key_paths(schema["properties"]))


def status_keys(schema: Mapping[str, Any]) -> dict[str, frozenset[int]]:
    """Each key that sets a status -> the statuses of its default."""
    found: dict[str, frozenset[int]] = {}
    for path, node in key_paths(schema["properties"]):
        if not (path.endswith("_status") or path.startswith("statuses.")):
            continue
        default = node.get("default")
        values = default if isinstance(default, list) else [default]
        found[path] = frozenset(v for v in values if isinstance(v, int))
    return found


def key_set_statuses(schema: Mapping[str, Any]) -> frozenset[int]:
    return frozenset().union(*status_keys(schema).values()) | ALTERNATIVE_KEY_STATUSES


def _is_name(node: Mapping[str, Any]) -> bool:
    """A key holding a name: its ``$ref`` (or one branch of its ``oneOf``: a name or null, like
    ``errors.code_field``) is one of the name definitions, and its default a string."""
    refs = [node.get("$ref", "")] + [b.get("$ref", "") for b in node.get("oneOf", ())]
    named = any(str(ref).rsplit("/", 1)[-1] in NAME_DEFS for ref in refs)
    return named and isinstance(node.get("default"), str)


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def key_only_names(schema: Mapping[str, Any], spec: str) -> dict[str, str]:
    """Name -> its key, for every header, field or parameter name a key's default supplies and
    the specification never uses (as a word, or as the same word with a plural s)."""
    names: dict[str, str] = {}
    for path, node in key_paths(schema["properties"]):
        section = path.split(".", 1)[0]
        if section not in NAME_SECTIONS or not _is_name(node):
            continue
        if section == "errors" and not path.endswith("_field"):
            continue
        name = node["default"]
        if not _word(name).search(spec) and not _word(name + "s").search(spec):
            names.setdefault(name, path)
    return names


# ------------------------------------------------------------------ the guards


def _stated(catalogue: Iterable[Requirement]) -> list[Requirement]:
    return [r for r in catalogue if r.basis == "stated"]


def quote_problems(catalogue: Iterable[Requirement], spec: str | None) -> list[str]:
    """A stated entry without a quote; with the spec, a quote not in the section it names."""
    catalogue = list(catalogue)
    problems = [
        f"{r.id}: stated without rests_on.spec" for r in _stated(catalogue) if not r.spec_quote
    ]
    if spec is None:
        return problems
    parts = {number: normalised(text) for number, text in sections(spec).items()}
    for r in catalogue:
        if r.spec_quote and normalised(r.spec_quote) not in parts.get(r.section, ""):
            problems.append(f"{r.id}: quote not in spec section {r.section}: {r.spec_quote!r}")
    return problems


def status_problems(catalogue: Iterable[Requirement], spec: str) -> list[str]:
    """A stated entry naming a status neither its quote nor its section gives."""
    parts = sections(spec)
    problems = []
    for r in _stated(catalogue):
        given = statuses_in(r.spec_quote or "") | statuses_in(parts.get(r.section, ""))
        pinned = statuses_in(f"{r.title} {r.text}") - given
        if pinned:
            problems.append(
                f"{r.id}: names {sorted(pinned)}, which spec section {r.section} does not give"
            )
    return problems


def name_problems(
    catalogue: Iterable[Requirement], spec: str, schema: Mapping[str, Any]
) -> list[str]:
    """A stated entry naming a header or field name only a profile key supplies."""
    names = key_only_names(schema, spec)
    problems = []
    for r in _stated(catalogue):
        for name, key in sorted(names.items()):
            if _word(name).search(f"{r.title} {r.text}"):
                problems.append(f"{r.id}: names {name!r}, which only the key {key} supplies")
    return problems


# Ids that named a status before a key came to set it: ids are never renamed, so the id keeps the
# status; its text names the key instead. id -> (the key, the status the id names).
KEYED_SINCE = {"LIMIT-RATE-429-RETRY-AFTER": ("errors.rate_limited_status", 429)}


def key_status_problems(
    catalogue: Iterable[Requirement], spec: str | None, schema: Mapping[str, Any]
) -> list[str]:
    """An id naming a status a key sets; a text naming one without naming a status key. A
    status the specification gives for the entry's section is the spec's, not the key's."""
    keyed = key_set_statuses(schema)
    keys = status_keys(schema)
    parts = sections(spec) if spec is not None else {}
    problems = []
    for r in catalogue:
        own = keyed - statuses_in(parts.get(r.section, ""))
        in_id = {int(part) for part in r.id.split("-") if part.isdigit()} & own
        if r.id in KEYED_SINCE:  # an id older than the key: ids are never renamed
            in_id -= {KEYED_SINCE[r.id][1]}
        if in_id:
            problems.append(f"{r.id}: the id names {sorted(in_id)}, a status a profile key sets")
        in_text = statuses_in(f"{r.title} {r.text}") & own
        if in_text and not any(key in r.text for key in keys):
            problems.append(
                f"{r.id}: names {sorted(in_text)} without the key that sets it "
                f"({', '.join(sorted(keys))})"
            )
    return problems


def unknown_key_problems(catalogue: Iterable[Requirement], schema: Mapping[str, Any]) -> list[str]:
    """A key in rests_on.keys that profile.schema.json does not have."""
    known = known_keys(schema)
    return [
        f"{r.id}: unknown profile key {key}"
        for r in catalogue
        for key in r.keys
        if key not in known
    ]


def text_key_problems(catalogue: Iterable[Requirement], schema: Mapping[str, Any]) -> list[str]:
    """A profile key a text names that the entry's rests_on.keys leaves out."""
    known = known_keys(schema)
    problems = []
    for r in catalogue:
        named = {key for key in DOTTED.findall(r.text) if key in known}
        for key in sorted(named - set(r.keys)):
            problems.append(f"{r.id}: its text names {key}, which rests_on.keys leaves out")
    return problems


# ------------------------------------------------------------------ planting bad entries


def planted(rid: str, **changes: Any) -> Catalogue:
    """The packaged catalogue with one entry changed (``rests_on_*`` changes rests_on)."""
    data = _raw_catalogue()
    (entry,) = (e for e in data["requirements"] if e["id"] == rid)
    for field, value in changes.items():
        if field.startswith("rests_on_"):
            entry["rests_on"][field.removeprefix("rests_on_")] = value
        else:
            entry[field] = value
    return parse_catalogue(yaml.safe_dump(data, sort_keys=False).encode(), source="planted")


def only(problems: list[str], rid: str) -> list[str]:
    return [p for p in problems if p.startswith(f"{rid}:")]


# ------------------------------------------------------------------ the catalogue


def test_every_stated_entry_quotes_the_spec() -> None:
    assert quote_problems(load_catalogue(), None) == []


def test_quotes_are_the_spec_words_of_the_named_section(spec: str) -> None:
    assert quote_problems(load_catalogue(), spec) == []


def test_the_spec_gives_the_statuses_we_expect(spec: str) -> None:
    assert stated_statuses(spec) == SPEC_STATUSES


def test_no_stated_entry_pins_a_status_the_spec_does_not_give(spec: str) -> None:
    assert status_problems(load_catalogue(), spec) == []


def test_no_stated_entry_names_a_name_only_a_key_supplies(spec: str) -> None:
    assert name_problems(load_catalogue(), spec, profile_schema()) == []


def test_key_only_names_are_derived_from_the_profile(spec: str) -> None:
    names = key_only_names(profile_schema(), spec)
    assert names["server-id"] == "headers.instance_id"
    assert names["errorCode"] == "errors.code_field"
    assert names["baseHash"] == "bodies.patch.base_hash"
    assert "environment" not in names  # the spec speaks of the environment alias
    assert "configuration" not in names  # a field of the record (spec 2.1)


def test_no_id_or_text_names_a_status_a_key_sets(spec: str) -> None:
    assert key_status_problems(load_catalogue(), spec, profile_schema()) == []


def test_ids_name_no_status_a_key_sets_even_without_the_spec() -> None:
    problems = key_status_problems(load_catalogue(), None, profile_schema())
    # Without the spec, a status it gives (403 for an alias outside the key's scope) looks keyed.
    assert [p for p in problems if "-403" not in p.split(":")[0]] == []


def test_every_listed_key_exists_in_the_profile_schema() -> None:
    assert unknown_key_problems(load_catalogue(), profile_schema()) == []


def test_a_key_a_text_names_is_listed() -> None:
    assert text_key_problems(load_catalogue(), profile_schema()) == []


# ------------------------------------------------------------------ renamed ids


RENAMED = {
    "ERR-VALIDATION-400": "ERR-VALIDATION-STATUS",
    "EXP-CREATE-400-FIELDS": "EXP-CREATE-INVALID-FIELDS",
    "EXP-CREATE-400-WEIGHTS": "EXP-CREATE-INVALID-WEIGHTS",
    "EXP-CREATE-400-GROUP-COUNT": "EXP-CREATE-INVALID-GROUP-COUNT",
    "EXP-CREATE-400-BASE-CONFIG": "EXP-CREATE-INVALID-BASE-CONFIG",
    "EXP-UNKNOWN-404": "EXP-UNKNOWN-ID",
    "ERR-UNKNOWN-CONFIGURATION-404": "ERR-UNKNOWN-CONFIGURATION",
}


def test_renamed_ids_map_to_their_entries() -> None:
    catalogue = load_catalogue()
    assert catalogue.renamed() == RENAMED
    for old, new in RENAMED.items():
        assert catalogue.current_id(old) == new
        assert old not in catalogue
    assert catalogue.current_id("CFG-PATCH-ATOMIC") == "CFG-PATCH-ATOMIC"
    assert catalogue.current_id("NO-SUCH-ID") == "NO-SUCH-ID"


def test_a_baseline_naming_an_old_id_counts_for_the_new_one() -> None:
    baseline = {"EXP-UNKNOWN-404": "ticket 7", "CFG-PATCH-ATOMIC": "ticket 8"}
    assert current_baseline(baseline) == {
        "EXP-UNKNOWN-ID": "ticket 7",
        "CFG-PATCH-ATOMIC": "ticket 8",
    }


def test_an_old_id_that_is_a_current_id_is_refused() -> None:
    with pytest.raises(ValueError, match=r"EXP-UNKNOWN-ID\): replaces CFG-PATCH-ATOMIC, which is"):
        planted("EXP-UNKNOWN-ID", replaces=["CFG-PATCH-ATOMIC"])


def test_an_old_id_replaced_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="replaces EXP-UNKNOWN-404, already replaced by"):
        planted("CFG-PATCH-ATOMIC", replaces=["EXP-UNKNOWN-404"])


# ------------------------------------------------------------------ each guard catches a plant


def test_a_stated_entry_without_a_quote_is_refused_by_the_schema() -> None:
    data = _raw_catalogue()
    del data["requirements"][0]["rests_on"]["spec"]
    with pytest.raises(ValueError, match=r"requirement #1 \(CFG-CREATE-RECORD-SHAPE\)"):
        parse_catalogue(yaml.safe_dump(data, sort_keys=False).encode())


def test_a_stated_entry_without_a_quote_is_caught_by_the_guard_too() -> None:
    unquoted = replace(load_catalogue()["VER-PATH-V2"], spec_quote=None)
    assert quote_problems([unquoted], None) == ["VER-PATH-V2: stated without rests_on.spec"]
    assert quote_problems([replace(unquoted, basis="inferred")], None) == []


def test_a_quote_the_spec_does_not_hold_is_caught(spec: str) -> None:
    catalogue = planted("CFG-PATCH-ATOMIC", rests_on_spec="patch answers 422")
    assert only(quote_problems(catalogue, spec), "CFG-PATCH-ATOMIC") != []


def test_a_quote_from_another_section_is_caught(spec: str) -> None:
    catalogue = planted("VER-PATH-V2", rests_on_spec="Both send Content-Type: application/json.")
    assert only(quote_problems(catalogue, spec), "VER-PATH-V2") == [
        "VER-PATH-V2: quote not in spec section 9: 'Both send Content-Type: application/json.'"
    ]


def test_a_quote_survives_other_whitespace_and_table_bars(spec: str) -> None:
    catalogue = planted("SDK-HDR-INSTANCE-ID-LENGTH", rests_on_spec="string,\n   length 1 to 128")
    assert only(quote_problems(catalogue, spec), "SDK-HDR-INSTANCE-ID-LENGTH") == []


def test_a_stated_entry_pinning_a_status_the_spec_does_not_give_is_caught(spec: str) -> None:
    catalogue = planted("CFG-CREATE-MINIMAL-BODY", text="A body with only a name answers 201.")
    assert only(status_problems(catalogue, spec), "CFG-CREATE-MINIMAL-BODY") == [
        "CFG-CREATE-MINIMAL-BODY: names [201], which spec section 2.2 does not give"
    ]
    # The same text on an inferred entry is no concern of this guard.
    inferred = planted("CFG-CREATE-MINIMAL-BODY", text="Answers 201.", basis="inferred")
    assert only(status_problems(inferred, spec), "CFG-CREATE-MINIMAL-BODY") == []


def test_a_stated_entry_naming_a_key_only_name_is_caught(spec: str) -> None:
    catalogue = planted("CFG-PATCH-409-STALE-BASE", text="A stale baseHash answers 409.")
    assert only(name_problems(catalogue, spec, profile_schema()), "CFG-PATCH-409-STALE-BASE") == [
        "CFG-PATCH-409-STALE-BASE: names 'baseHash', which only the key "
        "bodies.patch.base_hash supplies"
    ]


def test_an_id_naming_a_keyed_status_is_caught(spec: str) -> None:
    catalogue = planted("ERR-UNKNOWN-PROJECT", id="ERR-UNKNOWN-PROJECT-404")
    problems = key_status_problems(catalogue, spec, profile_schema())
    assert "ERR-UNKNOWN-PROJECT-404: the id names [404], a status a profile key sets" in problems


def test_a_text_naming_a_keyed_status_without_its_key_is_caught(spec: str) -> None:
    catalogue = planted("ERR-UNKNOWN-PROJECT", text="An unknown project answers 404.")
    assert only(key_status_problems(catalogue, spec, profile_schema()), "ERR-UNKNOWN-PROJECT")
    named = planted(
        "ERR-UNKNOWN-PROJECT", text="It answers errors.not_found_status (404 by default)."
    )
    assert only(key_status_problems(named, spec, profile_schema()), "ERR-UNKNOWN-PROJECT") == []


def test_an_unknown_key_is_caught() -> None:
    catalogue = planted("ERR-UNKNOWN-PROJECT", rests_on_keys=["errors.no_such_status"])
    assert unknown_key_problems(catalogue, profile_schema()) == [
        "ERR-UNKNOWN-PROJECT: unknown profile key errors.no_such_status"
    ]


def test_a_text_naming_an_unlisted_key_is_caught() -> None:
    listed = list(load_catalogue()["ERR-UNKNOWN-PROJECT"].keys)
    catalogue = planted("ERR-UNKNOWN-PROJECT", rests_on_keys=listed[1:])
    assert text_key_problems(catalogue, profile_schema()) == [
        f"ERR-UNKNOWN-PROJECT: its text names {listed[0]}, which rests_on.keys leaves out"
    ]
