"""Two phases, one session: under pytest-xdist the ``serial`` tests start only after every other
test has ended, all on one worker; in one process they run last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)

TESTS = """
import json, os, time
from pathlib import Path
import pytest

LOG = Path({log!r})

def _note(name, start):
    with LOG.open("a") as out:
        out.write(json.dumps([name, os.environ.get("PYTEST_XDIST_WORKER", "main"), start,
                              time.monotonic()]) + "\\n")

@pytest.mark.parametrize("n", range(8))
def test_parallel(n):
    start = time.monotonic()
    time.sleep(0.3 if n % 2 else 0.05)
    _note(f"parallel-{{n}}", start)

@pytest.mark.serial(spends=True)
def test_spends_the_target():
    start = time.monotonic()
    _note("serial-spends", start)

@pytest.mark.serial
@pytest.mark.parametrize("n", range(3))
def test_serial(n):
    start = time.monotonic()
    time.sleep(0.05)
    _note(f"serial-{{n}}", start)

@pytest.mark.serial
@pytest.mark.xdist_group("production")
def test_serial_in_another_group():
    start = time.monotonic()
    _note("serial-grouped", start)
"""


def _runs(log: Path) -> list[tuple[str, str, float, float]]:
    return [tuple(json.loads(line)) for line in log.read_text().splitlines()]  # type: ignore[misc]


@pytest.mark.parametrize("workers", ["0", "3"])
def test_serial_tests_run_after_the_rest_alone(pytester: pytest.Pytester, workers: str) -> None:
    log = pytester.path / "log.jsonl"
    pytester.makepyfile(test_phases=TESTS.format(log=str(log)))
    args = ["-n", workers]  # the conformance plugin (autoloaded) brings the phases
    if workers != "0":
        args += ["--dist", "loadgroup"]
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=13)
    runs = _runs(log)
    parallel = [r for r in runs if r[0].startswith("parallel")]
    serial = [r for r in runs if r[0].startswith("serial")]
    assert len(parallel) == 8 and len(serial) == 5
    assert serial[-1][0] == "serial-spends"  # spending ones after the other serial ones
    assert min(r[2] for r in serial) >= max(r[3] for r in parallel)
    assert len({r[1] for r in serial}) == 1
    if workers != "0":
        assert len({r[1] for r in parallel}) > 1  # the parallel phase was parallel
