"""What a stage declares about itself: the one record the CLI, the plugin and the reports read.

A stage is one package under ``conformance/stages/`` whose ``__init__`` defines ``STAGE``, a
``Stage``; the registry (``conformance.stages``) lists them. The declaration must stay cheap to
import (no schemathesis, no Locust at module level): everything heavy sits behind the callables.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A test adds (STAGE_PROPERTY, {"name": <stage>, "details": {...}}) to its user properties
# (``record_property``); the details land in that stage's summary in the Report. Details that are
# cumulative per worker carry a "worker" key and are merged by the stage's ``merge_details``.
STAGE_PROPERTY = "conformance-stage"

Details = dict[str, Any]


@dataclass(frozen=True)
class Stage:
    """One stage of a run: which tests it collects, with which plugins, and how it reports."""

    name: str
    help: str  # one line for ``conformance run --help``
    test_package: str  # what ``--pyargs`` collects; items of modules under it belong to the stage
    # pytest plugins loaded with autoloading off (start-up cost in every xdist worker); None: the
    # stage needs installed plugins autoloaded (schemathesis registers itself through pytest11).
    plugins: tuple[str, ...] | None = None
    subject: str = "server"  # whose requirements it judges: "server" or "client"
    in_all: bool = True  # part of ``--stage all``
    # Its measuring is one session fixture in one xdist group (a fleet, the client runs): a run
    # of it alone starts no xdist workers, so a stop signal reaches that fixture in the process
    # that writes the reports, which keep what it measured (``conformance.run.stop_signals``).
    one_process: bool = False
    # Adds the stage's own options to ``conformance run`` (an argparse group).
    add_options: Callable[[argparse._ArgumentGroup], None] | None = None
    # The stage's own pytest arguments from the parsed options (before ``--pyargs``).
    pytest_args: Callable[[argparse.Namespace], list[str]] | None = None
    # The requirements a run of this stage alone answers for; None: every requirement of its
    # subject.
    requirements: Callable[[], frozenset[str]] | None = None
    # Folds per-worker details into one; None: combined key by key (later keys win).
    merge_details: Callable[[Sequence[Details]], Details] | None = None
    # The stage's details as short readable lines for the reports; None: generic key/value lines.
    describe: Callable[[Mapping[str, Any]], list[str]] | None = None
    # Extra HTML for the stage in conformance.html (charts as inline SVG, no script, no network),
    # from its details alone (``conformance report`` re-renders without a run); the caller
    # redacts nothing, so it must only show what the details hold. None: the summary row only.
    html: Callable[[Mapping[str, Any]], str] | None = None

    def owns(self, module: str) -> bool:
        """Whether a test module (dotted name) belongs to this stage."""
        return module == self.test_package or module.startswith(self.test_package + ".")

    def merged(self, parts: Sequence[Details]) -> Details:
        """Per-worker details as one."""
        if self.merge_details is not None:
            return dict(self.merge_details(parts))
        combined: Details = {}
        for part in parts:
            combined.update(part)
        return combined
