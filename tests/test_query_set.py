"""The combined per-unit query gives each domain exactly the captures its own query would."""

from pathlib import Path

import ascend_feasibility.analyzer.core.filework  # noqa: F401  (imports every module that registers a query)
import pytest
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import Unit

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"


def _spans(found):
    return {name: [(n.start_byte, n.end_byte, n.type) for n in nodes] for name, nodes in found.items() if nodes}


@pytest.mark.parametrize("path", sorted(SAMPLES.rglob("*.py")), ids=lambda p: str(p.relative_to(SAMPLES)))
def test_combined_captures_equal_separate_ones(path):
    keys = set(query_set._PARTS)
    assert {"references", "phase_facts", "imports"} <= keys and len(keys) >= 8
    unit = Unit(str(path), "python", SourceText.from_text(path.read_text(encoding="utf-8")))
    query_set.plan(unit, keys)
    for key in sorted(keys):
        separate = parsing.captures(parsing.query("python", query_set._PARTS[key]), unit.tree())
        query_set.filtered(separate, query_set._FILTERS.get(key, {}), unit.tree())
        assert _spans(query_set.unit_captures(unit, key)) == _spans(separate), key


_PHASE_PREDICATES = {
    "dotted": "^[A-Za-z_][A-Za-z0-9_]*([.][A-Za-z_][A-Za-z0-9_]*){2,}$",
    "string_content": "[.](yaml|yml|json|toml|cfg|cu|cuh|cpp|cc|cxx|c|h|hpp)$|^(csrc|src|include|kernels)/",
}


def test_filters_pick_what_the_match_predicates_did():
    """phase_facts' string filters replace two #match? predicates: over strings at each edge of their tests (a final
    newline before `$`, non-ASCII text, one dot or two, a suffix mid-string, a folder after an f-string's field) they
    pick exactly the strings the predicates picked."""
    strings = ["a.b.c", "a.b", "a.b.c\n", "torch.nn.functional", "x.y.z w", "ä.b.c", "cfg/a.yaml", "a.yaml\n", "a.yamlx",
               "a.yaml\n\n", "src/k.cu", "srcx/a", "kernels/", "a.h", "a.hh", "include/ä.cpp",
               "a.json.bak", ".c", "c", " a.b.c"]
    source = "".join(f"s{i} = '''{text}'''\n" for i, text in enumerate(strings)) + 'f"{x}src/y"\n'
    unit = Unit("m.py", "python", SourceText.from_text(source))
    found = query_set.unit_captures(unit, "phase_facts")
    for name, pattern in _PHASE_PREDICATES.items():
        predicate = f'((string_content) @{name} (#match? @{name} "{pattern}"))'
        expected = parsing.captures(parsing.query("python", predicate), unit.tree()).get(name, [])
        assert len(expected) > 3 and [n.start_byte for n in found[name]] == [n.start_byte for n in expected], name


def test_an_unplanned_key_is_still_answered():
    unit = Unit("m.py", "python", SourceText.from_text("import torch\ntorch.cuda.synchronize()\n"))
    query_set.plan(unit, {"phase_facts"})
    assert query_set.unit_captures(unit, "imports")["module"]
    assert "phase_facts" in unit.cache["captures"]


def test_an_alone_key_is_matched_only_for_the_unit_that_asks():
    """The float64 flow scan's patterns (every assignment and argument name) stay out of the combined query: a unit
    that never asks for them never pays for them, and one that asks gets exactly their own captures."""
    assert {"_DtypeFlowScan", "_OperatorScan"} <= query_set._ALONE
    source = "import torch\nx = torch.zeros(3, dtype=torch.float64)\nf(x, dtype=wide)\n"
    unit = Unit("m.py", "python", SourceText.from_text(source))
    query_set.plan(unit, set(query_set._PARTS))
    query_set.unit_captures(unit, "references")
    assert "references" in unit.cache["captures"] and not {"_DtypeFlowScan", "_OperatorScan"} & set(unit.cache["captures"])
    found = query_set.unit_captures(unit, "_DtypeFlowScan")
    assert [parsing.text(n) for n in found["bound_name"]] == ["x"]
    assert [parsing.text(n) for n in found["dtype_name"]] == ["x", "wide"]
    assert "_OperatorScan" not in unit.cache["captures"]


def test_keys_are_checked():
    with pytest.raises(ValueError):
        query_set.register("bad.key", "(identifier) @x")
    with pytest.raises(ValueError):
        query_set.register("references", "(identifier) @x")


def _scan_classes():
    from ascend_feasibility.domains.python_refs import PythonScan

    pending, found = [PythonScan], []
    while pending:
        for sub in pending.pop().__subclasses__():
            found.append(sub)
            pending.append(sub)
    return found


GATED_PARTS = [(cls, number, words, patterns) for cls in _scan_classes()
               for number, (words, patterns) in enumerate(cls.GATED)]


def _corpus() -> list[bytes]:
    """Every sample and test file, and every Python example of the knowledge base's rules."""
    from ascend_feasibility.knowledge import load_knowledge

    paths = sorted(SAMPLES.rglob("*.py")) + sorted(Path(__file__).resolve().parent.rglob("*.py"))
    examples = [snippet if isinstance(snippet, str) else snippet.code
                for rule in load_knowledge().rules.values() for group in rule.examples if group.language == "python"
                for snippet in (*group.invalid, *group.valid)]
    return [p.read_bytes() for p in paths] + [e.encode("utf-8") for e in examples]


CORPUS = _corpus()


def test_text_gated_patterns_exist():
    names = {cls.__name__ for cls, *_ in GATED_PARTS}
    assert {"_FileScan", "_DistributedScan", "_AttentionScan", "_ResourceScan"} <= names


@pytest.mark.parametrize("cls, number, words, patterns", GATED_PARTS,
                         ids=[f"{c.__name__}-{n}" for c, n, *_ in GATED_PARTS])
def test_a_gate_never_hides_a_match(cls, number, words, patterns):
    """A gated pattern captures only nodes whose own text spells one of its words: over every sample and test-data
    file, each capture holds a word (so a unit without the words cannot have a capture, and in a unit with them only
    the nodes over an occurrence can be one)."""
    compiled = parsing.query("python", patterns)
    captured = 0
    for source in CORPUS:
        tree = parsing.parse("python", source)
        for nodes in parsing.captures(compiled, tree).values():
            for node in nodes:
                captured += 1
                assert any(word in parsing.text(node) for word in words), parsing.text(node)
    assert captured, f"{cls.__name__} gate {number}: the corpus exercises none of its patterns"


@pytest.mark.parametrize("cls, number, words, patterns", GATED_PARTS,
                         ids=[f"{c.__name__}-{n}" for c, n, *_ in GATED_PARTS])
def test_a_gated_query_over_its_words_finds_what_the_whole_tree_gives(cls, number, words, patterns):
    compiled = parsing.query("python", patterns)
    encoded = frozenset(word.encode("utf-8") for word in words)
    for source in CORPUS:
        tree = parsing.parse("python", source)
        assert _spans(parsing.captures_around(compiled, tree, encoded)) == _spans(parsing.captures(compiled, tree))


@pytest.mark.parametrize("path", sorted(SAMPLES.rglob("*.py")), ids=lambda p: str(p.relative_to(SAMPLES)))
def test_a_gated_key_asked_alone_gets_its_own_captures(path):
    """The gated query holds every gated pattern, yet a unit that asks for one gated key gets exactly what that key's
    patterns find over the whole tree: another key's captures near its words are not handed to it or kept."""
    source = SourceText.from_text(path.read_text(encoding="utf-8"))
    gated = sorted(query_set._GATED)
    for key in gated:
        unit = Unit(str(path), "python", source)
        query_set.plan(unit, {key})
        separate = parsing.captures(parsing.query("python", query_set._PARTS[key]), unit.tree())
        assert _spans(query_set.unit_captures(unit, key)) == _spans(separate), key
        assert set(unit.cache["captures"]) == {key}  # nothing kept for a key the unit did not ask for


def test_the_gated_query_is_compiled_once_for_every_set_of_keys():
    query_set._combined.cache_clear()
    one = Unit("a.py", "python", SourceText.from_text('dist.init_process_group("nccl")\nx.double()\n'))
    two = Unit("b.py", "python", SourceText.from_text('dist.init_process_group("nccl")\n'))
    query_set.plan(one, {"_DistributedScan_gated0", "_PrecisionScan_gated0"})
    query_set.plan(two, {"_DistributedScan_gated0"})
    assert [parsing.text(n) for n in query_set.unit_captures(one, "_PrecisionScan_gated0")["double"]] == ["double"]
    assert [parsing.text(n) for n in query_set.unit_captures(two, "_DistributedScan_gated0")["string"]] == ['"nccl"']
    assert query_set._combined.cache_info().currsize == 1


def test_captures_around_visits_only_the_words():
    source = b'\n\n# leading blanks: the module node starts after them\nx = "cuda"\n' + b"y = 1\n" * 50 + \
        b'z = "cuda:0" if a == "cuda" else "cpu"\nw = "not here"\n'
    tree = parsing.parse("python", source)
    assert tree.start_byte > 0
    found = parsing.captures_around(parsing.query("python", "(string) @s"), tree, frozenset({b"cuda"}))
    assert [parsing.text(n) for n in found["s"]] == ['"cuda"', '"cuda:0"', '"cuda"']  # not "cpu", though it is close


def test_a_gated_key_is_planned_only_where_its_words_are():
    from ascend_feasibility.domains.distributed.python_scanner import _DistributedScan

    with_word = Unit("a.py", "python", SourceText.from_text('import torch.distributed as dist\ndist.init_process_group("nccl")\n'))
    without = Unit("b.py", "python", SourceText.from_text('import torch.distributed as dist\ndist.init_process_group("gloo")\n'))
    assert "_DistributedScan_gated0" in _DistributedScan.query_keys(with_word)
    assert _DistributedScan.query_keys(without) == {"_DistributedScan"}
    scan = _DistributedScan.__new__(_DistributedScan)
    scan.unit = with_word
    assert [parsing.text(n) for n in scan.captures()["string"]] == ['"nccl"']
    assert [parsing.text(n) for n in scan.captures()["imported_module"]] == ["torch.distributed"]


def test_the_enum_strings_calls_over_their_words_equal_the_whole_tree():
    """domains/device/enum_strings.py matches its call patterns only around "cuda" and "value": every capture spells
    one, so over every sample, test file and rule example the captures are those of the whole tree."""
    from ascend_feasibility.domains.device import enum_strings

    compiled = parsing.query("python", enum_strings.QUERY)
    captured = 0
    for source in CORPUS:
        tree = parsing.parse("python", source)
        whole = parsing.captures(compiled, tree)
        captured += sum(len(nodes) for nodes in whole.values())
        for nodes in whole.values():
            assert all(any(word in node.text for word in enum_strings.QUERY_WORDS) for node in nodes)
        # as sets of spans: tree-sitter's order of two captures that start at one byte (`a.replace("x_cuda",
        # "y").replace(...)`, the inner call and the outer) differs between processes, whole tree or not
        around = parsing.captures_around(compiled, tree, enum_strings.QUERY_WORDS)
        assert {name: sorted(spans) for name, spans in _spans(around).items()} == \
            {name: sorted(spans) for name, spans in _spans(whole).items()}
    assert captured
