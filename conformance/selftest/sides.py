"""The four catalogues ``conformance selftest`` runs, one per side the suite judges (and the
correct-but-different servers), and where they live in the source checkout.

A ``Side`` says what pytest collects for a catalogue (a whole run, or the entries ``--only`` and
``--section`` choose), which test judges one entry, whether entries run in parallel, and the
stage whose requirements its reach counts. ``SIDES`` holds the four (``ORDER``), ``APPLIES``
the options that belong to some sides only; ``check_checkout`` is the usage error of an
installed package without the catalogues.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.errors import UsageError

SERVER, CLIENT, LOAD, VARIANTS = "server", "client", "load", "variants"
SECTIONS = ("escapes", "defects")  # defects: every fault outside the escapes section


@dataclass(frozen=True)
class Side:
    """One catalogue: what pytest collects for it, and which of its tests judge a fault."""

    name: str
    what: str
    paths: tuple[str, ...]  # a whole run, relative to the checkout
    chosen_paths: tuple[str, ...]  # a run of the entries --only/--section choose
    fault_test: str  # the test function that judges one entry
    ignore: tuple[str, ...] = ()
    parallel: bool = False  # --workers applies
    # The stage whose requirements its reach counts; None: the run records the figures itself.
    stage: str | None = None


SIDES: dict[str, Side] = {
    SERVER: Side(
        SERVER,
        "faulty servers, tests/faulty",
        ("tests/faulty",),
        # A chosen subset runs only the catalogue's test (and the reach figures), not the other
        # self-tests of tests/faulty (slow targets and the like).
        ("tests/faulty/test_catalogue.py", "tests/faulty/test_coverage.py"),
        "test_fault_is_caught_exactly",
        ignore=("tests/faulty/clients", "tests/faulty/test_load_faults.py"),
        parallel=True,
    ),
    CLIENT: Side(
        CLIENT,
        "faulty clients, tests/faulty/clients",
        ("tests/faulty/clients",),
        ("tests/faulty/clients",),
        "test_client_variant_fails_exactly_its_declared_set",
        parallel=True,  # two at a time keep every verdict (docs/design-notes.md)
        stage="client",
    ),
    LOAD: Side(
        LOAD,
        "load faults, tests/faulty/test_load_faults.py",
        ("tests/faulty/test_load_faults.py",),
        ("tests/faulty/test_load_faults.py::test_load_fault_is_caught_exactly",),
        "test_load_fault_is_caught_exactly",
        stage="load",
    ),
    VARIANTS: Side(
        VARIANTS,
        "correct-but-different servers, tests/variants",
        ("tests/variants",),
        ("tests/variants/test_variants.py",),
        # Each entry records an empty declared set: a correct variant, which passes exactly
        # when it is interface-conformant with exactly its drop-in differences.
        "test_variant_passes_exactly",
        parallel=True,
    ),
}
ORDER = (SERVER, CLIENT, LOAD, VARIANTS)
# Options that belong to some sides only: option -> the sides it applies to.
APPLIES: dict[str, tuple[str, ...]] = {
    "--section": (SERVER,),
    "--full": (SERVER,),
    "--workers": tuple(name for name in ORDER if SIDES[name].parallel),
}


def checkout_root() -> Path:
    return Path(__file__).resolve().parents[2]


def check_checkout(sides: Sequence[Side], root: Path | None = None) -> None:
    """Every path the sides collect is there; else the usage error of an installed package."""
    root = root or checkout_root()
    missing = [p for side in sides for p in side.paths if not (root / p).exists()]
    if missing:
        raise UsageError(
            "conformance selftest needs the catalogues of one-defect variants (tests/faulty, with "
            "its clients/ and test_load_faults.py) and of correct variants (tests/variants), "
            "which are part of the source checkout and not "
            f"of the installed package (missing: {', '.join(missing)})",
            "run it from a clone of the repository, with the kit installed from it "
            '(python -m pip install -e ".[test]")',
        )
