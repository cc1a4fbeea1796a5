"""What one side's test reports say: how each fault was caught, and the side's row of the score.

Each fault's test records (``record_property``) the set it declares (``fault_breaks``), the set
its stage failed (``fault_failed``) and how long its run took (``fault_seconds``). ``Tally`` is
the pytest plugin that gathers them on the controller into ``FaultReport``s (``caught``: exactly,
with another set, missed); ``side_result`` folds a tally into a ``SideResult``, the side's row,
with the requirements broken by a fault over the side's requirements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from conformance.registry import by_name
from conformance.selftest.sides import Side

# What a fault's test records (record_property): its declared set, the set its stage failed, and
# how long its own run took.
DECLARED, FAILED, SECONDS = "fault_breaks", "fault_failed", "fault_seconds"
EXACT, OTHER, MISSED = "caught exactly", "caught with another set", "missed"


def _count(value: object) -> int:
    """A figure a run recorded (``record_property``): a number, or a string of one."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"not a count: {value!r}")


def _names(value: object) -> frozenset[str] | None:
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(v) for v in value)
    return None


@dataclass(frozen=True)
class FaultReport:
    """How one entry was caught: what it declares and what its stage failed."""

    name: str
    declared: frozenset[str] | None  # None: not recorded (the test broke before it started)
    failed: frozenset[str] | None  # None: nothing to judge it by (no report, or the run raised)
    passed: bool  # its test passed
    known: bool = False  # a strict xfail: a documented mismatch
    seconds: float | None = None

    @property
    def correct(self) -> bool:
        """A correct-but-different variant: it declares nothing and must fail nothing."""
        return self.declared == frozenset()

    @property
    def caught(self) -> str:
        if self.failed is None or self.declared is None:
            return MISSED
        if self.failed == self.declared:
            return EXACT
        return OTHER if self.failed else MISSED

    def explain(self) -> str:
        declared = sorted(self.declared) if self.declared is not None else "?"
        if self.failed is None:
            got = "no verdict (the stage gave no report, or the run raised: see its failure above)"
        else:
            got = f"failed {sorted(self.failed) if self.failed else 'nothing'}"
        known = " (known mismatch, strict xfail)" if self.known else ""
        return f"{self.name}: declared {declared}, {got}{known}"


@dataclass(eq=False)  # a plugin object: pytest keeps it in sets
class Tally:
    """What one side's test reports say, gathered on the pytest controller."""

    fault_test: str
    faults: dict[str, FaultReport] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # other tests that failed
    collection_errors: list[str] = field(default_factory=list)
    properties: dict[str, object] = field(default_factory=dict)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collection_errors.append(str(report.nodeid) or "(collection)")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        recorded = dict(report.user_properties)
        self.properties.update(recorded)
        if self.fault_test not in report.nodeid:
            if report.failed:
                self.errors.append(report.nodeid)
            return
        name = report.nodeid.rsplit("[", 1)[-1].rstrip("]") if "[" in report.nodeid else ""
        if report.when == "teardown":
            if report.failed:
                self.errors.append(report.nodeid)
            return
        if report.when == "setup" and report.passed:
            return
        known = hasattr(report, "wasxfail")
        seconds = recorded.get(SECONDS)
        self.faults[name] = FaultReport(
            name=name,
            declared=_names(recorded.get(DECLARED)),
            failed=_names(recorded.get(FAILED)),
            passed=bool(report.passed) and not known,
            known=known and bool(report.skipped),
            seconds=float(seconds) if isinstance(seconds, (int, float)) else None,
        )
        if report.failed and self.faults[name].caught == EXACT:
            self.errors.append(report.nodeid)  # exact, yet failed: a stale xfail, or unjudged


@dataclass(frozen=True)
class SideResult:
    """One side's result as the score table shows it."""

    side: str
    faults: tuple[FaultReport, ...]
    correct: tuple[FaultReport, ...] = ()  # correct-but-different variants
    errors: tuple[str, ...] = ()  # other self-tests that failed
    covered: int | None = None  # requirements broken by a fault
    requirements: int | None = None  # the side's requirements (server: the breakable ones)
    note: str = ""  # how ``requirements`` reads (server: how many are not breakable)
    seconds: float = 0.0
    code: int = 0  # pytest's exit status

    def count(self, caught: str) -> int:
        return sum(1 for f in self.faults if f.caught == caught)

    @property
    def exact(self) -> bool:
        return all(f.caught == EXACT for f in self.faults)

    @property
    def ok(self) -> bool:
        """Every fault caught exactly, every correct variant passed, no other failure."""
        return (
            self.exact
            and all(c.passed for c in self.correct)
            and not self.errors
            and self.code in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
        )

    @property
    def ran_nothing(self) -> bool:
        """No entry was selected (-k matched none of this side's)."""
        return self.code == pytest.ExitCode.NO_TESTS_COLLECTED

    def state(self) -> str:
        """One line for the end of the side's run."""
        if self.ran_nothing:
            return "ran nothing (no entry selected)"
        parts = []
        if self.faults or not self.correct:
            parts.append(f"{self.count(EXACT)}/{len(self.faults)} faults caught exactly")
        if self.correct:
            passed = sum(1 for c in self.correct if c.passed)
            parts.append(f"{passed}/{len(self.correct)} correct variants passed")
        text = ", ".join(parts)
        return text + ("" if self.ok else "; NOT all as expected (details below)")

    def reach(self) -> str:
        if self.covered is None or not self.requirements:
            return "-"
        return f"{self.covered}/{self.requirements}{self.note}"


def side_result(side: Side, tally: Tally, seconds: float, code: int) -> SideResult:
    """Fold a side's tally into its row of the table."""
    reports = list(tally.faults.values())
    faults = tuple(f for f in reports if not f.correct)
    correct = tuple(f for f in reports if f.correct)
    covered: int | None = None
    requirements: int | None = None
    note = ""
    requirements_of = by_name()[side.stage].requirements if side.stage else None
    if requirements_of is None:
        props = tally.properties
        if "requirements_checkable" in props:
            covered = _count(props.get("requirements_with_fault", 0))
            requirements = _count(props.get("requirements_breakable", 0))
            unbreakable = _count(props["requirements_checkable"]) - requirements
            note = f" breakable ({unbreakable} not)"
    else:
        scope = requirements_of()
        broken = set().union(*(f.declared or frozenset() for f in faults))
        covered, requirements = len(scope & broken), len(scope)
    return SideResult(
        side.name,
        faults,
        correct,
        errors=(
            *(f"{e} (collection)" for e in sorted(set(tally.collection_errors))),
            *tally.errors,
        ),
        covered=covered,
        requirements=requirements,
        note=note,
        seconds=seconds,
        code=int(code),
    )
