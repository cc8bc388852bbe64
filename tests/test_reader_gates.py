"""The per-file readers' trigger gates and cheaper reads (docs/validation-speed20.md) give what the full reads gave:
a unit that spells no trigger word skips a reader only where the reader could find nothing, and a query in place of a
Python walk returns the same nodes in the walk's order."""

from __future__ import annotations

from pathlib import Path

import ascend_feasibility.analyzer.core.filework  # noqa: F401  (imports every module that registers a query)
import pytest
from ascend_feasibility.analyzer.context import literal_flags, process_groups
from ascend_feasibility.analyzer.context.commented_imports import commented_imports
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import Unit

SAMPLES = Path(__file__).resolve().parent.parent / "sample_projects"


def _calls(source: str) -> tuple[list[str], bytes]:
    data = source.encode()
    tree = parsing.parse("python", data)
    names = parsing.captures(parsing.query("python", "(call function: [(identifier) @n (attribute attribute: "
                                                     "(identifier) @n)])"), tree).get("n", [])
    return [parsing.text(n) for n in names], data


def test_a_unit_spelling_no_initialiser_never_reads_its_calls():
    called, data = _calls("import torch\n\n\ndef main():\n    torch.distributed.init_process_group('hccl')\n")
    assert process_groups.starts_group(lambda: called, [], data)
    asked = []
    plain, data = _calls("import json\n\n\ndef main():\n    json.dumps({})\n")
    assert not process_groups.starts_group(lambda: asked.append(1) or plain, [], data)
    assert asked == []  # the gate held: the calls' names were never read
    # the word alone (a comment, a string) lets the reader run, and it finds no call
    called, data = _calls("# we never call init_process_group here\nprint('init_device_mesh')\n")
    assert process_groups.may_call_initialiser(data) and not process_groups.starts_group(lambda: called, [], data)
    assert process_groups.starts_group(lambda: [], ["accelerate.utils"], b"")  # a framework import needs no call
    assert process_groups.starts_group(lambda: [], ["json", "torch.distributed.run"], b"")
    # a module merely starting with a framework's name is none of its submodules
    assert not process_groups.starts_group(lambda: [], ["acceleratex", "torch.distributed", "rayon.core"], b"")


def test_a_file_without_a_comment_mark_comments_no_import_out():
    def read(source):
        return commented_imports(parsing.parse("python", source.encode()), lambda module: module)

    assert read("import os\nx = 'from a import b'\n") == []
    assert read("import os\n# from a import b\n") == [("a", 2), ("a.b", 2)]


GROUPS = ("import torch.distributed as dist\n\n\n"
          "def ready():\n"
          "    return dist.is_initialized()\n\n\n"
          "def run(x):\n"
          "    if ready():\n"               # 9: a helper's test
          "        if dist.is_initialized() and x:\n"  # 10: nested in 9's arm
          "            dist.barrier()\n"
          "    elif dist.is_initialized():\n"  # 12: an elif of 9
          "        dist.barrier()\n"
          "    if dist.is_initialized():\n"  # 14: a later sibling
          "        dist.barrier()\n")


def test_process_group_arms_come_in_the_walks_order():
    """A node before its descendants, a later sibling's subtree before an earlier one's (the stack walk's order,
    which the facts and the cache keep)."""
    tree = parsing.parse("python", GROUPS.encode())
    arms = process_groups.gated_arms(tree, GROUPS)
    walked = []
    for node in parsing.walk(tree):
        if node.type in {"if_statement", "elif_clause"}:
            walked += process_groups._arms([node], process_groups._helpers(tree))
    assert arms == walked
    assert [first for first, _, _ in arms] == [15, 10, 13, 11]


def test_sole_assignment_reads_the_same_identifiers_around_the_name(monkeypatch):
    source = ("USE_FAST = False\nOTHER = 'x'\n\n\n"
              "def f():\n    if USE_FAST:\n        return 1\n    return g(USE_FAST)\n\n\n"
              "SPLIT = True\nSPLIT = False\n")
    tree = parsing.parse("python", source.encode())
    around = {name: literal_flags._sole_assignment(tree, name) for name in ("USE_FAST", "OTHER", "SPLIT", "missing")}
    monkeypatch.setattr(literal_flags, "MAX_NODES", tree.descendant_count - 1)  # the walk, below its limit still
    walked = {name: literal_flags._sole_assignment(tree, name) for name in around}
    assert {k: v and v.id for k, v in around.items()} == {k: v and v.id for k, v in walked.items()}
    assert around["USE_FAST"] is not None and around["SPLIT"] is None and around["missing"] is None


def _spans(found):
    return {name: [(n.start_byte, n.end_byte) for n in nodes] for name, nodes in found.items() if nodes}


@pytest.mark.parametrize("path", sorted(SAMPLES.rglob("*.py"))[:12], ids=lambda p: str(p.relative_to(SAMPLES)))
def test_a_unit_no_scanner_reads_leaves_the_scans_patterns_out(path):
    """A unit whose plan holds no scanner's key runs the readers' keys only; a scan key asked after all is still
    answered, each key with exactly the captures a unit planned with every key gets."""
    scans = sorted(query_set._SCANS - query_set._ALONE - query_set._GATED.keys())
    assert len(scans) >= 5 and "phase_facts" not in scans
    text = path.read_text(encoding="utf-8")
    full = Unit(str(path), "python", SourceText.from_text(text))
    query_set.plan(full, set(query_set._PARTS))
    plain = Unit(str(path), "python", SourceText.from_text(text))
    query_set.plan(plain, {"phase_facts", "calls"})
    query_set.unit_captures(plain, "phase_facts")
    assert not set(scans) & set(plain.cache["captures"])  # no scan's patterns were matched
    for key in sorted(set(query_set._PARTS) - query_set._GATED.keys()):
        assert _spans(query_set.unit_captures(plain, key)) == _spans(query_set.unit_captures(full, key)), key
