"""Loading a profile file: YAML with line numbers, ``${ENV_VAR}``, validation, defaults."""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable, Mapping
from difflib import get_close_matches
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from conformance.errors import UsageError
from conformance.profile.building import build
from conformance.profile.defaults import DEFAULTS, schema
from conformance.profile.model import Profile

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

KeyPath = tuple[str | int, ...]  # where a value sits in a profile: keys and list indices


class _MarkedLoader(yaml.SafeLoader):
    """A SafeLoader whose composed node tree is walked for line numbers."""


def _lines(node: yaml.Node, path: KeyPath, out: dict[KeyPath, int]) -> None:
    """Record the line of every key and item, by its path."""
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = (*path, key_node.value)
            out[child] = key_node.start_mark.line + 1
            _lines(value_node, child, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _lines(item, (*path, index), out)


def _dotted(path: KeyPath) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _line_of(path: KeyPath, lines: dict[KeyPath, int]) -> int | None:
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _where(source: str, path: KeyPath, lines: dict[KeyPath, int]) -> str:
    line = _line_of(path, lines)
    return f"{source}, line {line}" if line is not None else source


def _substitute(
    value: object,
    path: KeyPath,
    source: str,
    lines: dict[KeyPath, int],
    unset_credentials: str | None = None,
) -> object:
    """Environment references replaced by their values; ``unset_credentials``: what an unset
    one under ``credentials`` reads as (None: it is a usage error)."""
    if isinstance(value, dict):
        return {
            k: _substitute(v, (*path, k), source, lines, unset_credentials)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [
            _substitute(v, (*path, i), source, lines, unset_credentials)
            for i, v in enumerate(value)
        ]
    if not isinstance(value, str) or "${" not in value:
        return value

    def read(match: re.Match[str]) -> str:
        name = match.group(1)
        if (
            name not in os.environ
            and unset_credentials is not None
            and path[:1] == ("credentials",)
        ):
            return unset_credentials
        if name not in os.environ:
            raise UsageError(
                f"{_where(source, path, lines)}: key {_dotted(path)} refers to ${{{name}}}, "
                "but that environment variable is not set",
                f"export {name}=... before running, or write the value into the profile",
            )
        return os.environ[name]

    whole = ENV_REFERENCE.fullmatch(value)
    text = ENV_REFERENCE.sub(read, value)
    if whole and path and path[0] != "credentials":
        # A whole-value reference outside credentials takes the YAML type of its value (e.g. 1).
        parsed = yaml.safe_load(text) if text.strip() else text
        return parsed if isinstance(parsed, (int, float, bool)) else text
    return text


def _merge(defaults: object, given: object) -> object:
    """``given`` over a copy of ``defaults``, mapping by mapping."""
    if isinstance(defaults, dict) and isinstance(given, dict):
        merged = copy.deepcopy(defaults)
        for key, value in given.items():
            merged[key] = _merge(defaults.get(key), value) if key in defaults else value
        return merged
    return copy.deepcopy(given)


def _validate(data: object, source: str, lines: dict[KeyPath, int]) -> None:
    validator = Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.message))
    if not errors:
        return
    problems = []
    for error in errors[:5]:
        path = tuple(error.absolute_path)
        hint = ""
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            extra = [key for key in error.instance if key not in known]
            path = (*path, extra[0]) if extra else path
            hint = _did_you_mean(extra[0], known) if extra else ""
        problems.append(
            f"{_where(source, path, lines)}: key {_dotted(path)}: {error.message}{hint}"
        )
    more = f"\n(and {len(errors) - 5} more)" if len(errors) > 5 else ""
    raise UsageError(
        "the target profile is invalid:\n" + "\n".join(problems) + more,
        "fix the profile (format: docs/target-profile.md, "
        "schema: conformance/profile/profile.schema.json)",
    )


def _did_you_mean(key: object, allowed: Iterable[str]) -> str:
    """``; did you mean X?`` for an unknown key close to one allowed at its place, else ""."""
    close = get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def parse(
    text: str,
    source: str = "<profile>",
    base: Path | None = None,
    unset_credentials: str | None = None,
) -> Profile:
    """Parse, substitute, validate and type a profile given as YAML text; ``unset_credentials``:
    what a credential's unset environment reference reads as, for a command that sends nothing
    (else an unset reference is a usage error naming the key and the line)."""
    try:
        node = yaml.compose(text, Loader=_MarkedLoader)
        data = yaml.load(text, Loader=_MarkedLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        context = error.context_mark
        if context is not None and mark is not None and context.line != mark.line:
            line += f" ({error.context} at line {context.line + 1})"
        raise UsageError(
            f"{source}{line}: the target profile is not valid YAML: {error.problem or error}",
            "fix the YAML syntax at that line",
        ) from None
    except yaml.YAMLError as error:
        raise UsageError(f"{source}: the target profile is not valid YAML: {error}") from None
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _lines(node, (), lines)
    if not isinstance(data, dict):
        raise UsageError(
            f"{source}: the target profile must be a YAML mapping, got {type(data).__name__}",
            "start from the example in docs/target-profile.md",
        )
    data = _substitute(data, (), source, lines, unset_credentials)
    _validate(data, source, lines)
    merged = _merge(DEFAULTS, data)
    if not isinstance(merged, dict):  # a mapping over the defaults' mapping stays one
        raise TypeError(f"{source}: the merged profile is not a mapping")
    written = written_keys(data) if isinstance(data, dict) else frozenset()
    return build(merged, Path(source) if base is None else base, written)


def written_keys(data: Mapping[str, object], prefix: str = "") -> frozenset[str]:
    """The dotted keys a profile mapping writes, down to its leaves (a list is a leaf). An empty
    section (``statuses: {}``) writes no key: it declares none of the keys under it."""
    found: set[str] = set()
    for name, value in data.items():
        dotted = f"{prefix}{name}"
        if isinstance(value, Mapping):
            found |= written_keys(value, dotted + ".")
        else:
            found.add(dotted)
    return frozenset(found)


def load(path: str | os.PathLike[str]) -> Profile:
    """Load a profile file; every problem is a ``UsageError`` naming the key and the line."""
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"target profile not found: {file}",
            "pass --profile/--target-profile with the path of an existing profile "
            "(refserver serve prints the path of the one it writes)",
        ) from None
    except OSError as error:
        raise UsageError(f"cannot read target profile {file}: {error.strerror}") from None
    return parse(text, source=str(file), base=file)
