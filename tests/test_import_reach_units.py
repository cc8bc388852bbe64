"""domains/phases/reach.py: what each file of an import graph reaches, against a plain walk from each file."""

from __future__ import annotations

import random

from ascend_feasibility.domains.phases.reach import ImportReach


def walk(start: str, graph: dict[str, set[str]]) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for target in graph.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def reached(reach: ImportReach, path: str) -> set[str]:
    return set(reach.paths(reach.mask(path)))


def test_a_cycle_reaches_what_any_of_its_files_imports_and_nothing_imports_back_into_it():
    graph = {"a.py": {"b.py"}, "b.py": {"c.py"}, "c.py": {"a.py", "d.py"}, "d.py": {"e.py"}, "e.py": set(),
             "f.py": {"a.py"}}
    reach = ImportReach(graph)
    assert reached(reach, "a.py") == reached(reach, "c.py") == {"a.py", "b.py", "c.py", "d.py", "e.py"}
    assert reached(reach, "d.py") == {"d.py", "e.py"}
    assert reached(reach, "e.py") == {"e.py"}
    assert reached(reach, "f.py") == {"a.py", "b.py", "c.py", "d.py", "e.py", "f.py"}
    assert set(reach.paths(reach.mask("c.py") & ~reach.bit("c.py"))) == {"a.py", "b.py", "d.py", "e.py"}


def test_a_file_only_imported_is_a_node_and_an_empty_graph_reaches_nothing():
    reach = ImportReach({"a.py": {"pkg/__init__.py"}})
    assert reached(reach, "pkg/__init__.py") == {"pkg/__init__.py"}
    assert reached(reach, "a.py") == {"a.py", "pkg/__init__.py"}
    assert list(ImportReach({}).paths(0)) == []


def test_reach_is_the_walk_on_random_graphs_with_cycles_and_long_chains():
    chooser = random.Random(27)
    for size in (1, 2, 5, 40, 300):
        files = [f"m{n}.py" for n in range(size)]
        graph = {path: {chooser.choice(files) for _ in range(chooser.randrange(4))} for path in files}
        for n in range(size - 1):  # a chain through every file: deeper than a recursive walk could go at size 3000
            graph[files[n]].add(files[n + 1])
        reach = ImportReach(graph)
        for path in files:
            assert reached(reach, path) == walk(path, graph)


def test_a_chain_deeper_than_the_recursion_limit():
    files = [f"m{n}.py" for n in range(5000)]
    graph = {path: {files[n + 1]} if n + 1 < len(files) else set() for n, path in enumerate(files)}
    graph[files[-1]] = {files[2500]}
    reach = ImportReach(graph)
    assert reached(reach, files[0]) == set(files)
    assert reached(reach, files[4000]) == set(files[2500:])
