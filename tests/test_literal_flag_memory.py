"""A module-level name assigned a literal once and tested by many ifs (analyzer/context/literal_flags.py): the caller's
memory reads the name's only assignment once per unit, and each `if` still gets its own answer (an `if` before the
assignment none)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context import literal_flags
from ascend_feasibility.analyzer.reading import parsing

CODE = ("def early():\n    if not HF_MODE:\n        return 1\n\n"
        "HF_MODE = False\n\n"
        "def late():\n    if not HF_MODE:\n        return 2\n\n"
        "if HF_MODE:\n    x = 3\n")


def _ifs(code: str):
    root = parsing.parse("python", code.encode())
    return [n for n in parsing.walk(root, source_order=True, named=True) if n.type == "if_statement"]


def _answers(code: str, memory):
    return [None if (read := literal_flags.literal_flag(s.child_by_field_name("condition"), s, memory)) is None
            else (read[0], read[1].start_point.row, read[2]) for s in _ifs(code)]


def test_each_if_gets_its_own_answer_with_and_without_the_memory():
    expected = [None, (True, 4, True), (False, 4, False)]  # the `if` before the assignment: nothing fixes it there
    assert _answers(CODE, None) == expected
    assert _answers(CODE, {}) == expected
    reordered = {}  # asked from the last `if` first: the memory holds no answer of a position
    statements = _ifs(CODE)
    last = literal_flags.literal_flag(statements[2].child_by_field_name("condition"), statements[2], reordered)
    first = literal_flags.literal_flag(statements[0].child_by_field_name("condition"), statements[0], reordered)
    assert last is not None and last[0] is False and first is None


def test_a_second_binding_or_a_write_leaves_every_if_unfixed():
    twice = CODE + "HF_MODE = True\n"
    assert _answers(twice, {}) == [None, None, None]
    written = CODE.replace("    x = 3\n", "    x = 3\nfoo(HF_MODE)\nHF_MODE.x = 1\n")
    assert _answers(written, {}) == [None, None, None]


def test_the_module_is_walked_once_per_name(monkeypatch):
    walks = []
    sole = literal_flags._sole_assignment
    monkeypatch.setattr(literal_flags, "_sole_assignment", lambda module, name: walks.append(name) or sole(module, name))
    _answers(CODE, {})
    assert walks == ["HF_MODE"]
    _answers(CODE, None)  # no memory: each `if` has the module walked
    assert walks == ["HF_MODE"] * 4
