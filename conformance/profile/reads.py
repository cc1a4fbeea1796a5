"""Which target-profile keys each test reads: a recording view of ``Profile``, on only on demand.

With ``RCES_RECORD_PROFILE_KEYS=FILE`` in the environment, the ``target`` fixture hands tests a
recording view of the profile (``recording_view``): the same frozen dataclasses, as subclasses
that note the dotted path of every key read (``errors.validation_status``,
``bodies.patch.base_hash``) in ``RECORDER``. The plugin opens a window per conformance test
(``ProfileKeyLog.recording``) and appends one JSON line per test to FILE: the test id, its
requirement ids and the keys read. ``tests/conformance/target/test_profile_reads_declared.py``
compares them with the catalogue's ``rests_on.keys``. Without the variable nothing here is
installed: no view, no hook work, no cost.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

from conformance.json_types import JsonObject

RECORD_ENV = "RCES_RECORD_PROFILE_KEYS"

# Fields of ``Profile`` that are not keys of the profile (where it came from, the merged mapping).
NOT_KEYS = frozenset({"source", "raw", "written"})

T = TypeVar("T")


class Recorder:
    """The keys read since the window opened; nothing is noted while no window is open."""

    def __init__(self) -> None:
        self._reads: set[str] | None = None
        self._paused = threading.local()

    def note(self, path: str) -> None:
        reads = self._reads
        if reads is not None and not getattr(self._paused, "on", False):
            reads.add(path)

    def open(self) -> None:
        self._reads = set()

    def close(self) -> frozenset[str]:
        reads, self._reads = self._reads or set(), None
        return frozenset(reads)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No read is noted inside (a repr of the profile in a traceback reads every key)."""
        before = getattr(self._paused, "on", False)
        self._paused.on = True
        try:
            yield
        finally:
            self._paused.on = before


RECORDER = Recorder()


def _is_section(value: object) -> bool:
    return is_dataclass(value) and not isinstance(value, type)


_CLASSES: dict[type, type] = {}


def _recording_class(cls: type) -> type:
    """A subclass of the dataclass ``cls`` that notes each key read on its instances (one per
    class, made on first use)."""
    if cls in _CLASSES:
        return _CLASSES[cls]
    names = frozenset(f.name for f in fields(cls)) - NOT_KEYS

    def __getattribute__(self: object, name: str) -> object:
        value = object.__getattribute__(self, name)
        if name in names and not _is_section(value):
            prefix: str = object.__getattribute__(self, "_rces_prefix")
            RECORDER.note(prefix + name)
        return value

    def __repr__(self: object) -> str:
        with RECORDER.paused():
            text: str = getattr(cls, "__repr__")(self)  # noqa: B009
            return text

    made = _CLASSES[cls] = type(
        cls.__name__,
        (cls,),
        {
            "__getattribute__": __getattribute__,
            "__repr__": __repr__,
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__,
        },
    )
    return made


def recording_view(value: T, prefix: str = "") -> T:
    """``value`` (a ``Profile`` or one of its sections) as a view noting every key read in
    ``RECORDER``; the same class for the type checker and for ``isinstance``."""
    if not _is_section(value):
        return value
    cls: type = type(value)
    view: T = object.__new__(_recording_class(cls))
    state = object.__getattribute__(view, "__dict__")
    for name, item in vars(value).items():
        nested = f"{prefix}{name}."
        state[name] = recording_view(item, nested) if name not in NOT_KEYS else item
    state["_rces_prefix"] = prefix
    return view


def log_path() -> Path | None:
    """The file named by ``RCES_RECORD_PROFILE_KEYS``, or None: recording is off."""
    value = os.environ.get(RECORD_ENV, "")
    return Path(value) if value else None


class ProfileKeyLog:
    """Appends one JSON line per test to the file: ``{"test", "requirements", "keys"}``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    @contextmanager
    def recording(self, test_id: str, requirement_ids: Iterable[str]) -> Iterator[None]:
        RECORDER.open()
        try:
            yield
        finally:
            keys = RECORDER.close()
            line = json.dumps(
                {"test": test_id, "requirements": list(requirement_ids), "keys": sorted(keys)}
            )
            with self._lock, self.path.open("a", encoding="utf-8") as out:
                out.write(line + "\n")


@cache
def active_log() -> ProfileKeyLog | None:
    """The log of this process when recording is on (read once per process), else None."""
    path = log_path()
    return ProfileKeyLog(path) if path is not None else None


def read_log(path: Path) -> list[JsonObject]:
    """The lines a recording run wrote, parsed."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.strip()]
