"""The hops of two walks through the kit, counted from a traced run (issue 41, "Walks").

A walk follows one thing through ``conformance``: ``scenario`` one requirement from
``conformance run --requirements ID --formats json`` (the embedded reference server) to
``conformance.json``; ``fuzz`` one fuzz failure (a reference server that answers 500 on one
operation, its one fuzz item run with ``--requirements ERR-NO-SERVER-ERROR``) from the failure
schemathesis hands to the kit to ``conformance.json``. The run is traced in this process with
``sys.setprofile`` (every thread); the walk is read off the trace by one rule:

- a call *carries* the thing when one of its arguments (``self`` and ``cls`` aside; searched
  three levels deep through containers, dataclass fields, the kit's objects' attributes and
  parsed options; not through pytest's objects, so a hook is no hop unless it is handed the
  thing) is or holds the requirement id, or (``fuzz``) is the first failure schemathesis hands
  to the kit (its own check of the 500) or an object a carrying call returned, from that failure
  on;
- a *hop* is a carrying call into a ``conformance`` module from another module (a call inside one
  module is no hop; the same function called again from the same module straight after, a loop,
  is one hop); the walk ends with the last call into the JSON report
  (``conformance.report.json_report``);
- *rooms* are the distinct packages the hops enter (``conformance.run``,
  ``conformance.stages.fuzz``, ...; the distinct modules are counted too); a room is *re-entered*
  each time a hop enters it again after the walk left it.

Run it from a checkout (``python benchmarks/walk_hops.py scenario``); to count another checkout's
walks, put that checkout first on the path: ``PYTHONPATH=/tmp/other python
benchmarks/walk_hops.py fuzz``. Prints the hops one per line and the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import conformance

PACKAGE_DIR = str(Path(conformance.__file__).parent) + os.sep
SCENARIO_ID = "SDK-STATUS-MINIMAL-REQUEST"  # judged by one test alone
FUZZ_ID = "ERR-NO-SERVER-ERROR"
FUZZ_OPERATION_PATH = "/sdk/v2/status"
FUZZ_ITEM = "status and not credentials and not stateful"
END_MODULE = "conformance.report.json_report"
DEPTH = 3


@dataclasses.dataclass(frozen=True)
class Hop:
    caller: str
    callee: str
    function: str


class Walk:
    """The profiler: the carrying calls into ``conformance`` modules, in order."""

    def __init__(self, marker: str, seed: Callable[[FrameType], object | None] | None) -> None:
        self.marker = marker
        self.seed = seed  # finds the object the walk starts from; None: it starts at once
        self.started = seed is None
        self.carried: dict[int, object] = {}  # id -> object (kept, so no id is reused)
        self.pending: set[int] = set()  # frames of carrying calls, whose return values carry
        self.hops: list[Hop] = []
        self.lock = threading.Lock()

    def holds(self, value: object, depth: int = DEPTH) -> bool:
        if id(value) in self.carried:
            return True
        if isinstance(value, str):
            return self.marker in value
        if depth == 0 or isinstance(value, bytes | int | float | bool | type(None)):
            return False
        if isinstance(value, dict):
            items: list[object] = [*list(value.keys())[:200], *list(value.values())[:200]]
        elif isinstance(value, list | tuple | set | frozenset):
            items = list(value)[:200]
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            items = [getattr(value, f.name, None) for f in dataclasses.fields(value)]
        elif isinstance(value, argparse.Namespace) or (
            type(value).__module__.startswith("conformance") and hasattr(value, "__dict__")
        ):
            items = list(vars(value).values())[:50]
        else:
            return False
        return any(self.holds(item, depth - 1) for item in items)

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "return":
            if id(frame) in self.pending:
                with self.lock:
                    self.pending.discard(id(frame))
                    if arg is not None and not isinstance(arg, str | int | bool | float):
                        self.carried[id(arg)] = arg
            return
        if event != "call" or not frame.f_code.co_filename.startswith(PACKAGE_DIR):
            return
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        values = [frame.f_locals.get(n) for n in names if n not in ("self", "cls")]
        if not self.started and self.seed is not None:
            seeded = self.seed(frame)
            if seeded is None:
                return
            self.carried[id(seeded)] = seeded
            self.started = True
        if not any(self.holds(value) for value in values):
            return
        callee = frame.f_globals.get("__name__", "?")
        back = frame.f_back
        caller = back.f_globals.get("__name__", "?") if back is not None else "?"
        with self.lock:
            self.pending.add(id(frame))
            hop = Hop(caller, callee, code.co_name)
            if caller != callee and (not self.hops or self.hops[-1] != hop):
                self.hops.append(hop)

    @contextmanager
    def tracing(self) -> Iterator[None]:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]

    def walked(self) -> list[Hop]:
        """The hops up to the last one into the JSON report."""
        last = max((i for i, hop in enumerate(self.hops) if hop.callee == END_MODULE), default=-1)
        return self.hops[: last + 1]


def room_of(module: str) -> str:
    return (
        module
        if module.count(".") < 2 or module.endswith(".__init__")
        else module.rpartition(".")[0]
    )


def figures(hops: list[Hop]) -> dict[str, object]:
    rooms = [room_of(hop.callee) for hop in hops]
    entries: Counter[str] = Counter()
    previous = None
    for room in rooms:
        if room != previous:
            entries[room] += 1
        previous = room
    return {
        "hops": len(hops),
        "modules": len({hop.callee for hop in hops}),
        "rooms": len(set(rooms)),
        "re-entered": {room: n - 1 for room, n in entries.most_common() if n > 1},
    }


def scenario_walk(report_dir: Path) -> Walk:
    from conformance.cli import main

    walk = Walk(SCENARIO_ID, seed=None)
    argv = ["run", "--requirements", SCENARIO_ID, "--formats", "json", "--report-dir"]
    with walk.tracing():
        main([*argv, str(report_dir), "--quiet"])
    return walk


def _answer_500(app: Any) -> Any:
    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != FUZZ_OPERATION_PATH:
            await app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 500,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"errorCode": "INTERNAL"}'})

    return wrapped


def _first_failure(frame: FrameType) -> object | None:
    """The first failure schemathesis hands into the kit (the 500 its own check found)."""
    back = frame.f_back
    if back is None or not back.f_globals.get("__name__", "").startswith("schemathesis"):
        return None
    for value in frame.f_locals.values():
        if any(cls.__name__ == "Failure" for cls in type(value).__mro__[1:]):
            return value
    return None


def fuzz_walk(report_dir: Path) -> Walk:
    from conformance.cli import main
    from refserver.runner import start_server

    walk = Walk(FUZZ_ID, seed=_first_failure)
    server = start_server(report_dir / "fuzz.db", wrap=_answer_500)
    try:
        argv = ["run", "--stage", "fuzz", "--requirements", FUZZ_ID, "--formats", "json"]
        target = ["--base-url", str(server.base_url), "--profile", str(server.profile_path)]
        where = ["--report-dir", str(report_dir), "--quiet", "-n", "0"]
        one_item = ["--", "-k", FUZZ_ITEM]  # the one fuzz item of the operation that fails
        with walk.tracing():
            main([*argv, *target, *where, *one_item])
    finally:
        server.stop()
    return walk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("walk", choices=("scenario", "fuzz"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        run = scenario_walk if options.walk == "scenario" else fuzz_walk
        hops = run(Path(directory)).walked()
    for hop in hops:
        print(f"  {hop.caller} -> {hop.callee}.{hop.function}")
    print(f"{options.walk} walk ({conformance.__file__}): {figures(hops)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
