"""One import cycle of a module graph, for the tests that hold a package to an acyclic graph."""

from __future__ import annotations

from collections.abc import Mapping, Set


def find_cycle(graph: Mapping[str, Set[str]]) -> list[str] | None:
    """One cycle as a path of module names (first and last the same), or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for target in sorted(graph.get(module, ())):
            found = visit(target, [*path, module])
            if found:
                return found
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module, [])
        if found:
            return found
    return None
