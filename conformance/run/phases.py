"""Two phases, one run: tests marked ``serial`` run after every other test, on one worker, with
no other request of the suite in flight (rate-limit drains, the shedding burst, reads that judge
a snapshot holding still).

Under pytest-xdist (``--dist loadgroup``, as ``conformance run`` starts it) the scheduler holds
the serial tests back, lets every other worker finish and leave, then hands them to the last
worker standing. In one process they are simply collected last. Either way it is one session,
so one report and one verdict.

What a test sees of it (the marker, ``require_serial_phase``) is
``conformance.session.serial_phase``; this module holds the scheduling.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController

from conformance.session.serial_phase import GROUP, MARK, is_serial, running


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "serial(spends=False): needs the target to itself (rate-limit drains, the shedding burst, "
        "reads that judge a snapshot holding still); runs after every other test, with nothing "
        "in flight; spends=True: it leaves buckets or load meters spent, so it runs last of all",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Serial tests last, in their own xdist group (before xdist names the groups); those that
    leave the target's buckets or meters spent after the others."""
    serial = [item for item in items if is_serial(item)]
    for item in serial:
        item.add_marker(pytest.mark.xdist_group(GROUP))
    serial.sort(key=_spends)  # stable: collection order within each kind
    items[:] = [item for item in items if not is_serial(item)] + serial


def _spends(item: pytest.Item) -> bool:
    mark = item.get_closest_marker(MARK)
    return bool(mark is not None and mark.kwargs.get("spends", False))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    with running(item):
        return (yield)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") == "loadgroup":
        return PhasedScheduling(config, log)
    return None


class PhasedScheduling(LoadGroupScheduling):  # type: ignore[misc]  # xdist ships no types
    """``loadgroup`` scheduling with the serial group held until it can run alone."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.held: dict[str, dict[str, bool]] = {}  # serial scope -> its tests
        self.released = False

    @property
    def _holding(self) -> bool:
        return bool(self.held) and not self.released

    @property
    def tests_finished(self) -> bool:
        return not self._holding and super().tests_finished

    @property
    def has_pending(self) -> bool:
        return self._holding or super().has_pending

    def schedule(self) -> None:
        assert self.collection_is_completed
        first: bool = getattr(self, "collection", None) is None
        if first:
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            collection: list[str] = list(next(iter(self.registered_collections.values())))
            self.collection = collection
            for nodeid in collection:
                scope = self._split_scope(nodeid)
                serial = GROUP in scope.split("_")  # xdist joins an item's group names with _
                unit = (self.held if serial else self.workqueue).setdefault(scope, {})
                unit[nodeid] = False
            for _ in range(len(self.nodes) - max(1, len(self.workqueue))):
                unused, _ = self.assigned_work.popitem()
                unused.shutdown()
        for _ in range(2):  # each node starts with up to two units, as loadgroup does
            for node in self.nodes:
                self._reschedule(node)

    def remove_node(self, node: WorkerController) -> str | None:
        crashed: str | None = super().remove_node(node)
        for other in self.nodes:  # the last one left may now run the serial phase
            self._reschedule(other)
        return crashed

    def _reschedule(self, node: WorkerController) -> None:
        if node.shutting_down:
            return
        if self.workqueue:
            if self._pending_of(self.assigned_work[node]) <= 2:
                self._assign_work_unit(node)
            return
        if not self._holding:
            node.shutdown()
            return
        others = [other for other in self.nodes if other is not node]
        if any(not other.shutting_down for other in others):
            node.shutdown()  # another worker stays for the serial phase
        elif not others:  # the parallel phase is over everywhere: the serial one starts here
            self.released = True
            self.assigned_work[node].update(self.held)
            collection = self.registered_collections[node]
            held = sorted(
                collection.index(nodeid) for unit in self.held.values() for nodeid in unit
            )
            node.send_runtest_some(held)  # in collection order: the spending ones last
            node.shutdown()
