"""What a stage declares about itself: the one record the CLI, the plugin and the run read.

Each stage's declaration is a module of the registry (``conformance.registry.<stage>``) defining
``STAGE``, a ``Stage``; the registry (``conformance.registry``) lists them. The declaration must
stay cheap to import: it names, never imports, the stage's machinery (its plugin, option check,
details merge, summary lines and HTML under ``conformance/stages/<stage>/``, its commands under
``conformance/cli/``, each by dotted name ``module:attribute``), loaded only when a run, a command
or a report needs it.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.catalogue.requirements import load_catalogue

# A stage publishes its details with ``conformance.session.wire.publish``; they land in that
# stage's summary in the Report, merged across processes by the stage's ``merge_details``.
Details = dict[str, Any]  # a stage's details, JSON values (what ``session.wire`` carries)
Values = Mapping[str, object]  # a stage's option values by ``Option.dest``, as pytest parsed them


@dataclass(frozen=True)
class Option:
    """One option of a stage, declared once: a pytest option of every run, and the same option
    on ``conformance run`` (spelled ``run_flag`` there when that differs; "" for pytest only)."""

    flag: str  # the pytest option, e.g. "--fuzz-tier"
    help: str
    type: Callable[[str], object] = str
    default: object = None  # pytest's default; ``conformance run`` passes on only what is given
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    run_flag: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def run_spelling(self) -> str:
        return self.flag if self.run_flag is None else self.run_flag

    @property
    def run_dest(self) -> str:
        return self.run_spelling.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Command:
    """A subcommand a stage brings to ``conformance``: a module of ``conformance/cli/`` with
    ``add_parser(subparsers)`` and ``main(options) -> exit status``, imported only when the parser
    is built."""

    name: str
    module: str


@dataclass(frozen=True)
class Stage:
    """One stage of a run: which tests it collects, with which plugin and options, what it
    answers for (the catalogue's ``stages`` field) and how it reports."""

    name: str
    help: str  # one line for ``conformance run --help``
    test_package: str  # what ``--pyargs`` collects; items of modules under it belong to the stage
    # The stage's own pytest plugin (module name): ``conformance.run.plugin`` registers it in
    # every process of a run that collects the stage's tests, whichever way pytest was started.
    plugin: str | None = None
    subject: str = "server"  # whose requirements it judges: "server" or "client"
    in_all: bool = True  # part of ``--stage all``
    # Its measuring is one session fixture in one xdist group (a fleet, the client runs): a run
    # of it alone starts no xdist workers, so a stop signal reaches that fixture in the process
    # that writes the reports, which keep what it measured (``conformance.session.stop_signals``).
    one_process: bool = False
    options: tuple[Option, ...] = ()
    pytest_extra: tuple[str, ...] = ()  # pytest arguments a run of the stage always gets
    # The callables below are named ``module:function`` and imported when first used.
    # ``(values) -> None``: checks the option values together before pytest starts (a
    # ``UsageError`` says what is wrong); None: nothing to check beyond each option's type.
    check_options: str | None = None
    commands: tuple[Command, ...] = ()
    # ``(per-worker details) -> details``: folds them into one; None: key by key (later win).
    merge_details: str | None = None
    # ``(details) -> lines``: the details as short readable lines for the reports; None: generic
    # key/value lines.
    describe: str | None = None
    # ``(details) -> HTML``: extra HTML for the stage in conformance.html (charts as inline SVG,
    # no script, no network), from its details alone (``conformance report`` re-renders without
    # a run); the caller redacts nothing, so it must only show what the details hold. None: the
    # summary row only.
    html: str | None = None

    def owns(self, module: str) -> bool:
        """Whether a test module (dotted name) belongs to this stage."""
        return module == self.test_package or module.startswith(self.test_package + ".")

    def requirements(self) -> frozenset[str]:
        """What a run of this stage alone answers for: every catalogue entry naming it in its
        ``stages``."""
        return frozenset(r.id for r in load_catalogue() if self.name in r.stages)

    def merged(self, parts: Sequence[Details]) -> Details:
        """Per-worker details as one."""
        if self.merge_details is not None:
            merge: Callable[[Sequence[Details]], Details] = named_attribute(self.merge_details)
            return dict(merge(parts))
        combined: Details = {}
        for part in parts:
            combined.update(part)
        return combined

    def lines(self, details: Details) -> list[str] | None:
        """The details as the stage reads them (``describe``); None: it declares no reading."""
        if self.describe is None:
            return None
        describe: Callable[[Details], list[str]] = named_attribute(self.describe)
        return list(describe(details))

    def drawn(self, details: Details) -> str | None:
        """The stage's own HTML for its details (``html``); None: it draws nothing."""
        if self.html is None:
            return None
        draw: Callable[[Details], str] = named_attribute(self.html)
        return str(draw(details))

    def add_run_options(self, parser: argparse.ArgumentParser) -> None:
        """The stage's options on ``conformance run`` (an argument group of their own)."""
        shown = [option for option in self.options if option.run_spelling]
        if not shown:
            return
        group = parser.add_argument_group(f"{self.name} stage")
        for option in shown:
            default = f" (default: {option.default})" if option.default is not None else ""
            group.add_argument(
                option.run_spelling,
                dest=option.run_dest,
                type=option.type,
                default=None,
                metavar=option.metavar,
                choices=option.choices,
                help=option.help + default,
            )

    def pytest_args(self, options: argparse.Namespace) -> list[str]:
        """The stage's pytest options from ``conformance run``'s parsed options: each one given,
        under its pytest spelling; checked together first (``check_options``)."""
        given = {
            option.dest: getattr(options, option.run_dest, None)
            for option in self.options
            if option.run_spelling
        }
        if self.check_options is not None:
            defaults = {option.dest: option.default for option in self.options}
            check: Callable[[Values], None] = named_attribute(self.check_options)
            check({**defaults, **{k: v for k, v in given.items() if v is not None}})
        args = list(self.pytest_extra)
        for option in self.options:
            value = given.get(option.dest)
            if value is not None:
                args += [option.flag, f"{value:g}" if isinstance(value, float) else str(value)]
        return args


def named_attribute(dotted: str) -> Any:
    """``module:attribute``, its module imported now."""
    module, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module), attribute)
