from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.dependencies.collate_functions import enclosing_collate, passed_as_collate


def _tree(code: str):
    return parsing.parse("python", code.encode())


def _call(root, name: str):
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call" and parsing.text(node.child_by_field_name("function")) == name:
            return node
        stack.extend(node.named_children)
    raise AssertionError(name)


def test_a_function_passed_as_collate_fn_directly_or_through_partial_is_one():
    code = ("from functools import partial\n"
            "def pad(batch, size):\n    return scatter_min(batch)\n"
            "def merge(batch):\n    return scatter_max(batch)\n"
            "a = DataLoader(d, collate_fn=partial(pad, size=2))\n"
            "b = DataLoader(d, collate_fn=self.merge)\n")
    root = _tree(code)
    passed = passed_as_collate(root)
    assert passed == {"pad", "merge"}
    assert enclosing_collate(_call(root, "scatter_min"), passed) == "pad"
    assert enclosing_collate(_call(root, "scatter_max"), passed) == "merge"


def test_a_function_named_collate_is_one_and_another_function_or_module_code_is_not():
    code = ("def point_collate_fn(batch):\n    return scatter_min(batch)\n"
            "def forward(x):\n    return scatter_max(x)\n"
            "y = segment_csr(x)\n")
    root = _tree(code)
    passed = passed_as_collate(root)
    assert passed == set()
    assert enclosing_collate(_call(root, "scatter_min"), passed) == "point_collate_fn"
    assert enclosing_collate(_call(root, "scatter_max"), passed) == ""
    assert enclosing_collate(_call(root, "segment_csr"), passed) == ""
