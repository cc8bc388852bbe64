"""A module-level `assert timm.__version__ == "0.3.2"`: the one release of a package a file runs with, written in code
(round 34 V1-4: mae's main_pretrain.py:27, main_finetune.py:26, main_linprobe.py:28, and no manifest or install
command pins timm). It is read as a pin of that release for the removed-torch-API check (DEP052) only: it declares
nothing, so the matrix and every other reading of declarations leave it out."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains import query_set
from ascend_feasibility.domains.base import Unit

SOURCE = "version-assert"
WORD = "__version__"
# each capture spells the gate's word (query_set): the `__version__` of an `assert` statement's comparison
VERSION_ASSERT_QUERY = r"""
(assert_statement . (comparison_operator (attribute object: (identifier) attribute: (identifier) @version))
 (#eq? @version "__version__"))
"""
VERSION_ASSERT_KEY = query_set.register("version_asserts", VERSION_ASSERT_QUERY, gate=(WORD,))


def version_asserts(unit: Unit, modules: set[str]) -> list[Declaration]:
    """The file's `assert m.__version__ == "v"` (either side) at its module level, `m` one of the top-level modules it
    imports (`modules`): a Declaration of module `m` (the project maps it to its distribution), `==v`, at its line."""
    if WORD not in unit.source.text:
        return []
    found = []
    for node in query_set.unit_captures(unit, VERSION_ASSERT_KEY).get("version", []):
        attribute = node.parent
        comparison = attribute.parent
        statement = comparison.parent
        if parsing.text(node) != WORD or statement.parent is None or statement.parent.type != "module":
            continue
        module = parsing.text(attribute.child_by_field_name("object"))
        operands = comparison.named_children
        operators = [child.type for child in comparison.children if not child.is_named]
        literal = next((o for o in operands if o.type == "string"), None)
        if module not in modules or operators != ["=="] or len(operands) != 2 or literal is None \
                or any(part.type == "interpolation" for part in literal.named_children):
            continue
        version = "".join(parsing.text(part) for part in literal.named_children if part.type == "string_content")
        if version:
            row = statement.start_point.row
            found.append(Declaration(module, f"=={version}", unit.path, row + 1, SOURCE, cell=unit.cell,
                                     text=unit.source.line_text(row).strip()[:200]))
    return found
