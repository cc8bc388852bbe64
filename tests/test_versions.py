"""The version gating of analyzer/context/versions.py, condition by condition: what each reads as true or false at the
target torch, and what it leaves unknown (None)."""

import pytest
from ascend_feasibility.analyzer.context.versions import (
    DECORATED_DEFINITIONS,
    MAX_NODES,
    VersionReader,
    legacy_triton_kernels,
)
from ascend_feasibility.analyzer.reading import parsing

FEATURES = {"torch.accelerator": "2.6", "torch.compiler": "2.1"}
HELPERS = ["is_torch_version", "required_torch_version"]


def evaluate(condition: str, torch: str = "2.5.1", before: str = "") -> bool | None:
    """The last `if` condition of `before` + `if condition: pass`, read at `torch`."""
    root = parsing.parse("python", f"{before}if {condition}:\n    pass\n".encode())
    statement = root.named_children[-1]
    reader = VersionReader(torch, FEATURES, HELPERS)
    reader.start_unit()
    return reader.evaluate(statement.child_by_field_name("condition"))


@pytest.mark.parametrize(("condition", "expected"), [
    ('torch.__version__ < "2.3"', False),
    ('torch.__version__ <= "2.5.1"', True),
    ('torch.__version__ > "2.5"', True),
    ('torch.__version__ >= "2.6"', False),
    ('torch.__version__ == "2.5.1"', True),
    ('torch.__version__ != "2.5.1"', False),
    ('"2.6" > torch.__version__', True),  # the literal on the left: the comparison read the other way
    ('"2.6" <= torch.__version__', False),
    ('"2.5.1" >= torch.__version__', True),
    ('"2.3" < torch.__version__', True),
    ('"2.5.1" == torch.__version__', True),
    ('"2.5" != torch.__version__', True),
    ('torch.version.__version__ >= "2"', True),
    ("torch.__version__ >= 2", True),  # a number as the version
    ("torch.__version__ < 2.6", True),
    ('version.parse(torch.__version__) >= version.parse("2.3")', True),
    ('Version(torch.__version__) < Version("2.3")', False),
    ('version.parse(version.parse(torch.__version__).base_version) >= version.parse("2.5")', True),
    ('version.parse(torch.__version__).public < "2.6"', True),
    ('Version(torch.__version__).release < (2, 3)', None),  # a tuple is not read
    ('"2.0" < torch.__version__ < "3"', None),  # a chain
    ('torch.__version__ >= "not a version"', None),
    ('torch.__version__ >= ""', None),
    (f'torch.__version__ >= "{"1" * 41}"', None),  # longer than any version
    ('other.__version__ >= "2"', None),
    ('torch.__version__ >= other', None),
    ("torch.__version__", None),
])
def test_comparisons_with_torchs_version(condition, expected):
    assert evaluate(condition) is expected


@pytest.mark.parametrize(("condition", "expected"), [
    ('not torch.__version__ < "2"', True),
    ('(torch.__version__ < "2")', False),
    ('torch.__version__ > "2" and torch.__version__ < "3"', True),
    ('torch.__version__ > "2" and torch.__version__ > "3"', False),
    ('unknown and torch.__version__ < "2"', False),  # a false operand decides `and`
    ('unknown and torch.__version__ > "2"', None),
    ('torch.__version__ < "2" or torch.__version__ < "1"', False),
    ('unknown or torch.__version__ > "2"', True),  # a true operand decides `or`
    ('unknown or torch.__version__ < "2"', None),
    ("not unknown", None),
])
def test_not_and_or(condition, expected):
    assert evaluate(condition) is expected


@pytest.mark.parametrize(("condition", "torch", "expected"), [
    ('hasattr(torch, "accelerator")', "2.5.1", False),
    ('hasattr(torch, "accelerator")', "2.6.0", True),
    ('hasattr(torch, "compiler")', "2.1.0", True),
    ('hasattr(torch, "unlisted")', "2.6.0", None),
    ("hasattr(torch, name)", "2.6.0", None),
    ('is_torch_version(">=", "2.1")', "2.5.1", True),
    ('utils.is_torch_version("<", "2.1")', "2.5.1", False),
    ('is_torch_version("~=", "2.1")', "2.5.1", None),
    ('is_torch_version(">=", other)', "2.5.1", None),
    ("required_torch_version(min_version=2.6)", "2.5.1", False),
    ("required_torch_version(min_version=2.1)", "2.5.1", True),
    ("required_torch_version(2.1)", "2.5.1", True),
    ("required_torch_version(min_version=2.1, max_version=2.5)", "2.5.1", False),
    ("required_torch_version(min_version=2.1, max_version=2.6)", "2.5.1", True),
    ("required_torch_version(max_version=2.6)", "2.5.1", True),
    ("required_torch_version(max_version=2.6)", "2.7.0", False),
    ("required_torch_version(min_version=low)", "2.5.1", None),
    ("required_torch_version()", "2.5.1", None),
    ("other_helper(min_version=2.1)", "2.5.1", None),
])
def test_feature_gates_and_version_helpers(condition, torch, expected):
    assert evaluate(condition, torch) is expected


def test_names_assigned_in_the_unit():
    parsed = "import torch\nfrom packaging import version\ntv = version.parse(torch.__version__)\n"
    assert evaluate('tv >= version.parse("2.6")', before=parsed) is False
    assert evaluate('tv >= version.parse("2.5")', before=parsed) is True
    assert evaluate('version.parse("2.6") > tv', before=parsed) is True
    assert evaluate('limit <= torch.__version__', before='limit = "2.6"\n') is False
    assert evaluate("NEW", before='NEW = torch.__version__ >= "2.1"\n') is True
    assert evaluate("not NEW", before='NEW = torch.__version__ >= "2.1"\n') is False
    assert evaluate("NEW", before="NEW = 1\n") is None  # a name is read only as a version or a decided condition
    assert evaluate('tv >= "2"', before="tv = torch.__version__\ntv = other\n") is None  # assigned twice
    assert evaluate('a >= "2"', before="a = b\nb = a\n") is None  # a cycle decides nothing
    inner = 'def f():\n    tv = torch.__version__\n    if tv >= "2.6":\n        pass\n'
    root = parsing.parse("python", inner.encode())
    condition = root.named_children[0].child_by_field_name("body").named_children[1].child_by_field_name("condition")
    reader = VersionReader("2.5.1", FEATURES, HELPERS)
    assert reader.evaluate(condition) is False  # a name assigned in the function's own body


def test_names_are_read_once_per_unit():
    reader = VersionReader("2.5.1", FEATURES, HELPERS)
    first = parsing.parse("python", b'tv = torch.__version__\nif tv >= "2":\n    pass\n')
    second = parsing.parse("python", b'tv = "1.0"\nif tv >= "2":\n    pass\n')
    reader.start_unit()
    assert reader.evaluate(first.named_children[-1].child_by_field_name("condition")) is True
    reader.start_unit()  # a new unit forgets the names of the last one
    assert reader.evaluate(second.named_children[-1].child_by_field_name("condition")) is None


def test_a_condition_past_the_node_budget_decides_nothing():
    deep = "not " * (MAX_NODES + 10) + 'torch.__version__ >= "2"'
    assert evaluate(deep) is None
    assert evaluate("not " * 20 + 'torch.__version__ >= "2"') is True


def test_legacy_triton_kernels_take_meta():
    code = (b"import triton\n"
            b"@triton.jit\ndef old(x, **meta):\n    pass\n"
            b"@triton.jit(debug=True)\ndef new(x, BLOCK: tl.constexpr):\n    pass\n"
            b"@functools.cache\ndef other(**kwargs):\n    pass\n"
            b"@triton.jit\nclass NotAFunction:\n    pass\n")
    root = parsing.parse("python", code)
    definitions = parsing.captures(parsing.query("python", DECORATED_DEFINITIONS), root).get("definition", [])
    assert legacy_triton_kernels(definitions) == (1, 2)
    assert legacy_triton_kernels(definitions[:1]) == (1, 1)
