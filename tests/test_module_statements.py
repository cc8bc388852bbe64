"""analyzer/reading/module_statements.py: a module's top-level statements, each with its type, the definition it is or
decorates, and an expression statement's first node, read once and shared by the per-file readers."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements

SOURCE = b'''"""Doc."""
import os
from a import b
X = 1
main()

@dataclass
class A:
    pass

def f():
    class Inner:
        pass

@lru_cache()
def g():
    pass

class B(Base):
    def h(self):
        pass

for i in range(3):
    pass
'''


def _read() -> ModuleStatements:
    return ModuleStatements(parsing.parse("python", SOURCE))


def _name(node) -> str:
    return parsing.text(node.child_by_field_name("name"))


def test_kinds_follow_the_statements_in_source_order():
    module = _read()
    assert module.kinds == ["expression_statement", "import_statement", "import_from_statement", "expression_statement",
                            "expression_statement", "decorated_definition", "function_definition",
                            "decorated_definition", "class_definition", "for_statement"]
    assert [s.type for s in module.statements] == module.kinds


def test_definitions_are_the_functions_and_classes_a_statement_is_or_decorates():
    module = _read()
    named = [_name(d) if d is not None else None for d in module.definitions]
    assert named == [None, None, None, None, None, "A", "f", "g", "B", None]
    assert [_name(c) for _, c in module.classes] == ["A", "B"]  # not the class inside f
    assert [_name(f) for _, f in module.functions] == ["f", "g"]  # not the method h
    decorated, cls = module.classes[0]
    assert decorated.type == "decorated_definition" and cls.type == "class_definition"


def test_heads_are_the_first_node_of_expression_statements_only():
    module = _read()
    assert [h.type if h is not None else None for h in module.heads] == [
        "string", None, None, "assignment", "call", None, None, None, None, None]
    assert [parsing.text(s) for s, _ in module.assignments] == ["X = 1"]
