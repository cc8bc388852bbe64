"""What each file of the project's import graph reaches, from one pass over the graph.

The files of an import cycle reach the same files, and a file reaches itself, what it imports and what those reach.
So the graph is condensed into its strongly connected components (Tarjan, iteratively: a package's import chains are
deeper than Python's recursion limit), which come out of the pass with every component after the ones it reaches; each
component's reach is then its own files and its successors' reach, kept as a bit mask over the graph's files (an
entry of a 2,000-module package reaches 700 of them, and a walk per entry cost more than the rest of the plan).
"""

from __future__ import annotations

from collections.abc import Iterator


class ImportReach:
    """`graph`: file → the files it imports."""

    def __init__(self, graph: dict[str, set[str]]) -> None:
        self._files = sorted(set(graph).union(*graph.values()) if graph else ())
        self._index = {path: number for number, path in enumerate(self._files)}
        successors = [[self._index[target] for target in sorted(graph.get(path, ()))] for path in self._files]
        self._masks = _component_masks(successors)

    def mask(self, path: str) -> int:
        """The files `path` (a file of the graph) reaches, itself included, as a bit mask: bit n is the n-th file."""
        return self._masks[self._index[path]]

    def bit(self, path: str) -> int:
        return 1 << self._index[path]

    def paths(self, mask: int) -> Iterator[str]:
        """The files of a mask."""
        bits = bin(mask)[:1:-1]  # bit n at index n
        position = bits.find("1")
        while position >= 0:
            yield self._files[position]
            position = bits.find("1", position + 1)


def _component_masks(successors: list[list[int]]) -> list[int]:
    """Each node's reach (a bit mask, the node included), from Tarjan's strongly connected components."""
    count = len(successors)
    order = [-1] * count  # when the walk first met each node
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    masks = [0] * count
    seen = 0
    for start in range(count):
        if order[start] >= 0:
            continue
        walk = [(start, 0)]
        order[start] = low[start] = seen
        seen += 1
        stack.append(start)
        on_stack[start] = True
        while walk:
            node, next_edge = walk[-1]
            edges = successors[node]
            if next_edge < len(edges):
                walk[-1] = (node, next_edge + 1)
                target = edges[next_edge]
                if order[target] < 0:
                    order[target] = low[target] = seen
                    seen += 1
                    stack.append(target)
                    on_stack[target] = True
                    walk.append((target, 0))
                elif on_stack[target]:
                    low[node] = min(low[node], order[target])
                continue
            walk.pop()
            if walk:
                parent = walk[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] != order[node]:
                continue
            # `node` roots a component: its members are on the stack above it, and every component they import
            # that is not this one came out of the walk before, its mask complete
            members = []
            while True:
                member = stack.pop()
                on_stack[member] = False
                members.append(member)
                if member == node:
                    break
            mask = 0
            for member in members:
                mask |= 1 << member
            inside = mask
            for member in members:
                for target in successors[member]:
                    if not (inside >> target) & 1:
                        mask |= masks[target]
            for member in members:
                masks[member] = mask
    return masks
