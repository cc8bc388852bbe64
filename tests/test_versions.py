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
    ('Version(torch.__version__).release < (2, 3)', False),  # the parsed version's parts, as Python compares them
    ("version.parse(torch.__version__).major >= 2", True),
    ("version.parse(torch.__version__).minor == 5", True),
    ('version.parse(torch.__version__).release >= [2, 5]', None),  # a tuple and a list: Python raises
    ('"2.0" < torch.__version__ < "3"', None),  # a chain
    ('torch.__version__ >= "not a version"', None),
    ('torch.__version__ >= ""', None),
    (f'torch.__version__ >= "{"1" * 41}"', None),  # longer than any version
    ('other.__version__ >= "2"', None),
    ('torch.__version__ >= other', None),
    ("torch.__version__", None),
    (f'torch.__version__ < "{"1" * 40}"', True),  # 40 characters are still read
    ('torch.__version__ in "2.5.1"', None),  # not a comparison of versions
    ("torch.__version__.major >= 2", True),  # a TorchVersion has no .major; read as the parsed version's
    ("version.parse(torch.__version__).epoch == 0", None),  # only release, major, minor, micro are read
    ('str(torch.__version__) >= "2"', None),  # only the version parsers pass their argument through
    ('packaging.version.parse(torch.__version__) >= "2.5"', True),
    ('version.parse(  # the running torch\n    torch.__version__) >= "2.5"', True),
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
    ('diffusers.utils.is_torch_version(">=", "2.1")', "2.5.1", True),
    ('is_torch_version(">=", 2.1)', "2.5.1", True),
    ('is_torch_version(">=", version.parse("2.6"))', "2.5.1", False),
    ('required_torch_version(min_version=Version("2.1"))', "2.5.1", True),
    ('is_torch_version(  # at least\n    ">=", "2.1")', "2.5.1", True),
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


def test_which_assignment_a_name_reads():
    assert evaluate('tv >= "2"', before='print(1)\ntv = torch.__version__\n') is True
    assert evaluate("tv < limit", before='limit = "3.0"\ntv = torch.__version__\n') is True  # two names, two values
    assert evaluate('tv >= "2" and tv < "3"', before="tv = torch.__version__\n") is True  # read twice
    nested = 'def f():\n    tv = torch.__version__\n    if ((((((((((tv >= "2")))))))))):\n        pass\n'
    root = parsing.parse("python", nested.encode())
    condition = root.named_children[0].child_by_field_name("body").named_children[1].child_by_field_name("condition")
    assert VersionReader("2.5.1", FEATURES, HELPERS).evaluate(condition) is True


def condition_of(code: str, *names: str):
    """The condition of the `if` whose body is `pass  # marker` for each marker name, in one parsed tree."""
    root = parsing.parse("python", code.encode())
    found = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "if_statement":
            body = parsing.text(node.child_by_field_name("consequence"))
            for name in names:
                if f"# {name}" in body:
                    found[name] = node.child_by_field_name("condition")
        stack.extend(node.named_children)
    return [found[name] for name in names]


def test_a_name_is_looked_up_in_its_own_function_and_the_module_only():
    code = ("def outer():\n    tv = torch.__version__\n    def inner():\n        if tv >= '2':\n            pass  # inner\n"
            "if True:\n    tc = torch.__version__\n    class C:\n        if tc >= '2':\n            pass  # klass\n"
            "def f():\n    v = '1.0'\n    if v >= '2':\n        pass  # f\n"
            "def g():\n    v = torch.__version__\n    if v >= '2':\n        pass  # g\n")
    inner, klass, in_f, in_g = condition_of(code, "inner", "klass", "f", "g")
    reader = VersionReader("2.5.1", FEATURES, HELPERS)
    reader.start_unit()
    assert reader.evaluate(inner) is None  # the enclosing function's name is not this function's
    assert reader.evaluate(klass) is None  # nor the block around a class
    assert reader.evaluate(in_f) is None and reader.evaluate(in_g) is True  # same name, two functions


def test_a_name_nested_deeper_than_the_lookup_reads_is_unknown():
    deep = 'tv = torch.__version__\n' + "".join("    " * i + "if x:\n" for i in range(210))
    code = deep + "    " * 210 + 'if tv >= "2":\n' + "    " * 211 + "pass  # deep\n"
    shallow = 'tv = torch.__version__\n' + "".join("    " * i + "if x:\n" for i in range(120))
    shallow += "    " * 120 + 'if tv >= "2":\n' + "    " * 121 + "pass  # shallow\n"
    reader = VersionReader("2.5.1", FEATURES, HELPERS)
    assert reader.evaluate(condition_of(code, "deep")[0]) is None
    assert reader.evaluate(condition_of(shallow, "shallow")[0]) is True


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
    # the budget is one for the whole condition: parentheses, `and`/`or` sides and names share it
    assert evaluate("(" * (MAX_NODES + 10) + 'torch.__version__ >= "2"' + ")" * (MAX_NODES + 10)) is None
    chain = 'torch.__version__ > "2"'
    for _ in range(60):
        chain = f'torch.__version__ > "2" and ({chain})'
    assert evaluate(chain) is None
    assert evaluate("not " * 100 + "NEW", before="NEW = " + "not " * 150 + 'torch.__version__ >= "2"\n') is None


def test_legacy_triton_kernels_take_meta():
    code = (b"import triton\n"
            b"@triton.jit\nclass NotAFunction:\n    pass\n"
            b"@functools.cache\ndef other(**kwargs):\n    pass\n"
            b"@triton.jit\ndef old(x, **meta):\n    pass\n"
            b"@triton.jit(debug=True)\ndef new(x, BLOCK: tl.constexpr):\n    pass\n"
            b"@triton.jit\ndef older(x, **META):\n    pass\n")
    root = parsing.parse("python", code)
    definitions = parsing.captures(parsing.query("python", DECORATED_DEFINITIONS), root).get("definition", [])
    assert legacy_triton_kernels(definitions) == (2, 3)
    assert legacy_triton_kernels(definitions[2:3]) == (1, 1)


def test_the_bounds_are_where_they_are_said_to_be():
    # MAX_NODES steps of reading: each `not`, comparison and call one step, each operand read one more
    at_tp26 = 'hasattr(torch, "accelerator")'
    assert evaluate("not " * (MAX_NODES - 1) + at_tp26, "2.6.0") is False  # the 200th step is still read
    assert evaluate("not " * MAX_NODES + at_tp26, "2.6.0") is None
    comparison = 'torch.__version__ >= "2"'  # 1 step and 2 operands
    assert evaluate("not " * (MAX_NODES - 3) + comparison) is False
    assert evaluate("not " * (MAX_NODES - 2) + comparison) is None
    assert evaluate("not " * 120 + comparison) is True
    assert evaluate('(torch.__version__ >= "2") and ((torch.__version__ < "3"))') is True
    chain = "v0 = torch.__version__\n" + "".join(f"v{i} = v{i - 1}\n" for i in range(1, 121))
    assert evaluate('v120 >= "2"', before=chain) is True  # a name read through 120 others


def test_a_name_is_read_in_the_first_2000_statements_of_a_block_and_8_blocks_up():
    assert evaluate('tv >= "2"', before="pass\n" * 1999 + "tv = torch.__version__\n") is True
    assert evaluate('tv >= "2"', before="pass\n" * 2000 + "tv = torch.__version__\n") is None

    def nested(levels: int) -> bool | None:
        code = "def f():\n    tv = torch.__version__\n"
        code += "".join("    " * (i + 1) + "if x:\n" for i in range(levels))
        code += "    " * (levels + 1) + 'if tv >= "2":\n' + "    " * (levels + 2) + "pass  # here\n"
        return VersionReader("2.5.1", FEATURES, HELPERS).evaluate(condition_of(code, "here")[0])

    assert nested(7) is True  # 7 `if` bodies, then the function's body: the 8th block up
    assert nested(8) is None


def test_a_name_is_read_within_400_ancestors():
    def at(levels: int, test: str = 'tv >= "2"') -> tuple[int, bool | None]:
        code = "tv = torch.__version__\n" + "".join(" " * i + "if x:\n" for i in range(levels))
        code += " " * levels + f"if {test}:\n" + " " * (levels + 1) + "pass  # here\n"
        condition = condition_of(code, "here")[0]
        identifier = condition
        while identifier.type != "identifier":
            identifier = identifier.named_children[0]
        up, node = 0, identifier.parent
        while node.type != "module":
            node, up = node.parent, up + 1
        return up, VersionReader("2.5.1", FEATURES, HELPERS).evaluate(condition)

    assert at(198, '(tv >= "2")') == (399, True)  # the module is the 400th ancestor: read
    assert at(199) == (400, None)  # the 401st: not


def test_only_the_first_2000_decorated_definitions_are_read():
    code = "".join(f"@cache\ndef f{i}():\n    pass\n" for i in range(2000)) + "@triton.jit\ndef k(**meta):\n    pass\n"
    root = parsing.parse("python", code.encode())
    definitions = parsing.captures(parsing.query("python", DECORATED_DEFINITIONS), root).get("definition", [])
    assert len(definitions) == 2001 and legacy_triton_kernels(definitions) == (0, 0)


def test_a_formatted_string_is_no_version():
    # f"2{x}.1" is known only at run time: the comparison decides nothing (it once read as version 2.1)
    assert evaluate('version.parse(torch.__version__) >= version.parse(f"2{x}.1")') is None
    assert evaluate('version.parse(torch.__version__) >= version.parse("2.1")') is True


@pytest.mark.parametrize(("condition", "torch", "expected"), [
    # torch.__version__ taken apart into Python values: what Python computes from the target's version
    ("tuple(int(x) for x in torch.__version__.split('.')[:2]) >= (1, 11)", "2.12.0", True),
    ('tuple(map(int, torch.__version__.split(".")[:2])) < (2, 13)', "2.12.0", True),
    ('[int(v) for v in torch.__version__.split(".")[:2]] >= [2, 13]', "2.12.0", False),
    ('list(int(v) for v in torch.__version__.split(".")[0:1]) == [2]', "2.12.0", True),
    ('int(torch.__version__.split(".")[0]) >= 2', "2.12.0", True),
    ('int(torch.__version__.split(".")[1]) < 10', "2.12.0", False),  # 12, not the 1 of a string
    ('torch.__version__.split(".")[1] == "12"', "2.12.0", True),
    ('int(torch.__version__.split(".")[2]) == 0', "2.12.0", None),  # the third part may be `0+cpu`
    ('tuple(map(int, torch.__version__.split("."))) >= (2, 1)', "2.12.0", None),  # all the parts: not known
    ('tuple(map(int, torch.__version__.split(".")[:3])) >= (2, 1)', "2.12.0", None),
    ('tuple(int(x) for x in torch.__version__.split(".")[:2] if x) >= (2, 1)', "2.12.0", None),
    ('tuple(float(x) for x in torch.__version__.split(".")[:2]) >= (2, 1)', "2.12.0", None),
    ('tuple(map(int, torch.__version__.split("+")[:2])) >= (2, 1)', "2.12.0", None),
    ('tuple(map(int, torch.__version__.split(".")[:2])) >= [2, 1]', "2.12.0", None),  # Python raises
    ('tuple(map(int, torch.__version__.split(".")[::2])) >= (2, 1)', "2.12.0", None),
    ('torch.__version__.split(".") == "2"', "2.12.0", None),
    ('tuple(map(int, other.__version__.split(".")[:2])) >= (2, 1)', "2.12.0", None),
    ("tuple(map(int, [1, 2])) >= (2, 1)", "2.12.0", None),  # nothing about torch
    ("1 < 2", "2.12.0", None),
    # .base_version and .public are strings, compared as strings
    ('version.parse(torch.__version__).base_version < "2.3"', "2.12.0", True),
    ('version.parse(torch.__version__).base_version < "2.3"', "2.1.0", True),
    ('version.parse(version.parse(torch.__version__).base_version) < version.parse("2.3")', "2.12.0", False),
    ('version.parse(torch.__version__).base_version.split(".")[1] == "12"', "2.12.0", True),
    # TorchVersion compares a tuple as a version, and a name that is no version as a string
    ("torch.__version__ >= (2, 1)", "2.12.0", True),
    ("torch.__version__ < (2, 1, 1)", "2.1.0", True),
    ('torch.__version__ == "parrots"', "2.12.0", False),
    ('torch.__version__ != "parrots"', "2.12.0", True),
    ('"parrots" == torch.__version__', "2.12.0", False),
    ('torch.__version__ < "parrots"', "2.12.0", None),
    ('torch.__version__ == ""', "2.12.0", None),
])
def test_a_version_taken_apart(condition, torch, expected):
    assert evaluate(condition, torch) is expected


def test_names_bound_to_parts_of_the_version():
    before = ('TORCH_MAJOR = int(torch.__version__.split(".")[0])\n'
              'TORCH_MINOR = int(torch.__version__.split(".")[1])\n')
    assert evaluate("TORCH_MAJOR > 1 or (TORCH_MAJOR == 1 and TORCH_MINOR >= 10)", "2.12.0", before) is True
    assert evaluate("TORCH_MAJOR == 2 and TORCH_MINOR < 4", "2.12.0", before) is False
    parts = 'version = torch.__version__.split(".")\nTV = tuple(int(x) for x in version[:2])\n'
    assert evaluate("TV >= (1, 11)", "2.12.0", parts) is True


def test_a_parameter_is_not_the_module_name_it_shadows():
    code = ('tv = torch.__version__\n'
            'def f(tv):\n    if tv >= "2":\n        pass  # parameter\n'
            'def g(x, *, tv=None):\n    if tv >= "2":\n        pass  # keyword\n'
            'def h(x):\n    if tv >= "2":\n        pass  # module\n')
    parameter, keyword, module = condition_of(code, "parameter", "keyword", "module")
    reader = VersionReader("2.5.1", FEATURES, HELPERS)
    reader.start_unit()
    assert reader.evaluate(parameter) is None and reader.evaluate(keyword) is None
    assert reader.evaluate(module) is True


GRADFIX = ('_new_api = parse_version(torch.__version__) >= parse_version("1.11.0a")\n'
           "def _use_custom(x):\n"
           "    assert isinstance(x, torch.Tensor)\n"
           "    if (not enabled) or (not torch.backends.cudnn.enabled):\n"
           "        return False\n"
           "    if _new_api:\n"
           "        # the work-around does not work on 1.11 onwards\n"
           "        return False\n"
           "    if x.device.type != 'cuda':\n"
           "        return False\n"
           "    return True\n")


@pytest.mark.parametrize(("before", "condition", "torch", "expected"), [
    (GRADFIX, "_use_custom(x)", "2.12.0", False),  # every way out at 2.12 returns False
    (GRADFIX, "not _use_custom(x)", "2.12.0", True),
    (GRADFIX, "_use_custom(x)", "1.9.1", None),  # at 1.9 the CUDA test decides: unknown
    ("def f():\n    return torch.__version__ >= '2.1'\n", "f()", "2.12.0", True),
    ("def f():\n    if torch.__version__ >= '2.1':\n        return True\n    return False\n", "f()", "2.12.0", True),
    ("def f():\n    if torch.__version__ < '2.1':\n        return True\n", "f()", "2.12.0", False),  # falls through: None
    ("def f():\n    if torch.__version__ < '2.1':\n        return True\n    elif ready:\n        return None\n"
     "    else:\n        return False\n", "f()", "2.12.0", False),
    ("@functools.lru_cache()\ndef f():\n    return torch.__version__ >= '2.1'\n", "f()", "2.12.0", True),
    ("@cache\ndef f():\n    return torch.__version__ >= '2.1'\n", "f()", "2.12.0", True),
    ("def f(x):\n    if ready:\n        return True\n    return False\n", "f(x)", "2.12.0", None),  # mixed values
    ("def f(x):\n    return x\n", "f(True)", "2.12.0", None),
    ("def f(tv):\n    return tv >= '2.1'\n", "f(torch.__version__)", "2.12.0", None),  # the caller's value
    ("def f():\n    for x in y:\n        return False\n    return False\n", "f()", "2.12.0", None),
    ("def f():\n    try:\n        return g()\n    except E:\n        return False\n", "f()", "2.12.0", None),
    ("def f():\n    yield False\n    return False\n", "f()", "2.12.0", None),  # a generator is truthy
    ("async def f():\n    return False\n", "f()", "2.12.0", None),  # a coroutine too
    ("@register\ndef f():\n    return False\n", "f()", "2.12.0", None),  # a decorator may return anything
    ("def f():\n    return False\ndef f():\n    return True\n", "f()", "2.12.0", None),  # defined twice
    ("def f():\n    return False\nf = other\n", "f()", "2.12.0", None),  # bound again
    ("from m import f\ndef f():\n    return False\n", "f()", "2.12.0", None),
    ("def f():\n    raise RuntimeError('no')\n", "f()", "2.12.0", None),  # never returns
    ("def f():\n    return f()\n", "f()", "2.12.0", None),  # recursion decides nothing
    ("class C:\n    def f(self):\n        return False\n", "f()", "2.12.0", None),  # a method, not a module function
    ("def f():\n    return False\n", "m.f()", "2.12.0", None),  # another module's f
    ("def f():\n    return False\n", "f()", "2.12.0", None),  # a constant no version test decides
    ("V = torch.__version__ >= '2'\ndef f():\n    return False\n", "f()", "2.12.0", None),
    ("def f():\n    if torch.__version__ < '2':\n        return True\n    return False\n", "f()", "2.12.0", False),
    ("def f():\n    def g():\n        return True\n    if torch.__version__ >= '2':\n        return False\n"
     "    return True\n", "f()", "2.12.0", False),  # g's return is g's
    ("def f():\n    with lock:\n        x = 1\n    return torch.__version__ >= '3'\n", "f()", "2.12.0", False),
    ("def f():\n    with lock:\n        return False\n", "f()", "2.12.0", None),
])
def test_a_call_of_the_units_own_function(before, condition, torch, expected):
    assert evaluate(condition, torch, before) is expected


# StyleGAN2-ADA's grid_sample_gradfix (round 28 B1 class 6, A2 C2 row 65, V2 W6): the custom Functions are applied only
# when `_should_use_custom_op()` holds, and that needs a 1.5-1.10 torch by prefix.
ADA_GATE = ("enabled = True\n"
            "def _should_use_custom_op():\n"
            "    if not enabled:\n"
            "        return False\n"
            "    if any(torch.__version__.startswith(x) for x in ['1.5.', '1.6.', '1.7.', '1.8.', '1.9.', '1.10.']):\n"
            "        return True\n"
            "    warnings.warn(f'not supported on PyTorch {torch.__version__}')\n"
            "    return False\n")


@pytest.mark.parametrize(("before", "condition", "torch", "expected"), [
    ("", "torch.__version__.startswith('1.10.')", "2.12.0", False),
    ("", "torch.__version__.startswith('2.')", "2.12.0", True),
    ("", "torch.__version__.startswith('2.1')", "2.12.0", True),  # as Python compares strings: '2.12.0' starts so
    ("", "torch.__version__.startswith('2.12.1')", "2.12.0", None),  # the micro version decides: unknown
    ("", "torch.__version__.startswith(('1.9.', '1.10.'))", "2.12.0", False),
    ("", "torch.__version__.startswith(('1.9.', '2.12'))", "2.12.0", True),
    ("", "torch.__version__.startswith(prefix)", "2.12.0", None),  # a name: not a literal
    ("", "torch.__version__.startswith(f'{major}.')", "2.12.0", None),
    ("", "other.__version__.startswith('1.10.')", "2.12.0", None),  # another package's version
    ("", "any(torch.__version__.startswith(x) for x in ['1.5.', '1.10.'])", "2.12.0", False),
    ("", "any(torch.__version__.startswith(x) for x in ('1.5.', '2.12.'))", "2.12.0", True),
    ("", "any(torch.__version__.startswith(x) for x in ['1.5.', '1.10.'])", "1.10.2", True),
    ("", "any(torch.__version__.startswith(x) for x in prefixes)", "2.12.0", None),
    ("", "any(torch.__version__.startswith(y) for x in ['1.5.'])", "2.12.0", None),  # not the loop's name
    ("", "any(torch.__version__.startswith(x) for x in ['1.5.'] if ready)", "2.12.0", None),
    ("", "not any(torch.__version__.startswith(x) for x in ['1.5.', '1.10.'])", "2.12.0", True),
    (ADA_GATE, "_should_use_custom_op()", "2.12.0", False),  # the predicate followed one hop
    (ADA_GATE, "_should_use_custom_op()", "1.9.0", None),  # the module switch `enabled` decides there: not read
    (ADA_GATE.replace("['1.5.', ", "['2.12.', "), "_should_use_custom_op()", "2.12.0", None),  # True or False
])
def test_prefix_tests_of_torchs_version(before, condition, torch, expected):
    assert evaluate(condition, torch, before) is expected


def test_a_note_names_the_target_and_the_test_a_function_returns_on():
    root = parsing.parse("python", f"{GRADFIX}if _use_custom(x):\n    pass\n".encode())
    condition = root.named_children[-1].child_by_field_name("condition")
    reader = VersionReader("2.12.0", FEATURES, HELPERS)
    reader.start_unit()
    assert reader.evaluate(condition) is False
    assert reader.note(condition, False) == "false at the target torch 2.12.0: _use_custom() returns False there (line 6: if _new_api:)"
    plain = parsing.parse("python", b"if torch.__version__ >= '2.3':\n    pass\n").named_children[0]
    assert reader.note(plain.child_by_field_name("condition"), True) == "true at the target torch 2.12.0"


FLAGS = {"transformers.pytorch_utils.is_torch_greater_or_equal_than_1_10": ">=1.10",
         "transformers.pytorch_utils.is_torch_less_than_1_11": "<1.11",
         "transformers.pytorch_utils.is_torch_greater_or_equal_than_2_4": ">=2.4"}


def evaluate_flags(condition: str, before: str, torch: str = "2.12.0") -> bool | None:
    root = parsing.parse("python", f"{before}if {condition}:\n    pass\n".encode())
    reader = VersionReader(torch, FEATURES, HELPERS, FLAGS)
    reader.start_unit()
    return reader.evaluate(root.named_children[-1].child_by_field_name("condition"))


IMPORT = "from transformers.pytorch_utils import ALL_LAYERNORM_LAYERS, is_torch_greater_or_equal_than_1_10, is_torch_less_than_1_11\n"


@pytest.mark.parametrize(("condition", "before", "torch", "expected"), [
    # ChatGLM-6B ptuning/trainer.py:77 and 2608: a library's flag imported by name, read at the target torch
    ("is_torch_greater_or_equal_than_1_10", IMPORT, "2.12.0", True),
    ("is_torch_less_than_1_11 or sampler", IMPORT, "2.12.0", None),
    ("is_torch_less_than_1_11", IMPORT, "2.12.0", False),
    ("not is_torch_greater_or_equal_than_1_10", IMPORT, "1.9.1", True),
    ("flag", "from transformers.pytorch_utils import is_torch_greater_or_equal_than_2_4 as flag\n", "2.3.1", False),
    ("native", IMPORT + "native = is_torch_greater_or_equal_than_1_10\n", "2.12.0", True),  # through a module name
    # not flagged: a flag of another module, a name the module also assigns, one imported only behind a guard
    ("is_torch_greater_or_equal_than_1_10", "from mylib.utils import is_torch_greater_or_equal_than_1_10\n", "2.12.0", None),
    ("is_torch_greater_or_equal_than_1_10", IMPORT + "is_torch_greater_or_equal_than_1_10 = check()\n", "2.12.0", None),
    ("is_torch_greater_or_equal_than_1_10",
     "try:\n    from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_10\nexcept ImportError:\n"
     "    is_torch_greater_or_equal_than_1_10 = False\n", "2.12.0", None),
    ("is_torch_greater_or_equal_than_1_10", "", "2.12.0", None),  # not imported at all
])
def test_library_version_flags(condition, before, torch, expected):
    assert evaluate_flags(condition, before, torch) is expected


def test_library_flags_inside_a_function_read_the_module_import():
    code = IMPORT + "def f(self):\n    if is_torch_greater_or_equal_than_1_10:\n        a = 1\n    else:\n        b = 2\n"
    root = parsing.parse("python", code.encode())
    condition = next(n for n in parsing.captures(parsing.query("python", "(if_statement condition: (_) @c)"), root)["c"])
    reader = VersionReader("2.12.0", FEATURES, HELPERS, FLAGS)
    reader.start_unit()
    assert reader.evaluate(condition) is True
    assert VersionReader("2.12.0", FEATURES, HELPERS).evaluate(condition) is None  # without the table: unknown


# companion packages: torchvision's version at the target is the release line paired with the target torch -----------
def companion(condition: str, torch: str = "2.12.0", lines: dict | None = None, before: str = "") -> bool | None:
    root = parsing.parse("python", f"{before}if {condition}:\n    pass\n".encode())
    reader = VersionReader(torch, FEATURES, HELPERS, companions={"torchvision": "0.27"} if lines is None else lines)
    reader.start_unit()
    return reader.evaluate(root.named_children[-1].child_by_field_name("condition"))


@pytest.mark.parametrize(("condition", "expected"), [
    # BasicSR's DCNv2Pack: the extension arm is the else of this test, never taken with torchvision 0.27
    ("LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0')", True),
    ("version.parse(torchvision.__version__) < version.parse('0.9')", False),
    ("digit_version(torchvision.__version__) >= digit_version('0.10.0')", True),  # mmcv's helper
    ("torchvision.__version__ >= '0.8'", True),
    ("'0.30' > torchvision.__version__", True),  # the literal on the left
    ("torchvision.__version__ < '0.28.0'", True),
    ("torchvision.__version__ >= '0.27'", True),  # the line's first release: every 0.27.x is at least that
    ("torchvision.__version__ < '0.27.0'", False),
    ("not LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0')", False),
    # a bound inside the line: 0.27.0 and 0.27.1 disagree
    ("torchvision.__version__ >= '0.27.1'", None),
    ("torchvision.__version__ == '0.27.0'", None),
    ("torchvision.__version__ >= '0.27.0rc1'", None),  # a pre-release bound
    ("torchvision.__version__ >= bound", None),  # a bound that is not a literal
    ("torchaudio.__version__ >= '2.0'", None),  # a package with no release paired at the target
    ("torchvision.__version__.split('.')[1] >= '9'", None),  # taken apart: not read for companions
])
def test_comparisons_with_a_companion_packages_version(condition, expected):
    assert companion(condition) is expected


def test_a_companion_is_read_through_a_name_and_exact_pairs_compare_exactly():
    before = "tv_version = version.parse(torchvision.__version__)\n"
    assert companion("tv_version >= version.parse('0.9.0')", before=before) is True
    assert companion("torchvision.__version__ >= '0.9.0'", lines={}) is None  # nothing paired: unknown
    exact = {"torchaudio": "2.4.1"}
    assert companion("torchaudio.__version__ >= '2.4.1'", torch="2.4.1", lines=exact) is True
    assert companion("torchaudio.__version__ > '2.4.1'", torch="2.4.1", lines=exact) is False


def test_the_reason_names_the_companion_release_line():
    root = parsing.parse("python", b"if LooseVersion(torchvision.__version__) >= LooseVersion('0.9.0'):\n    pass\n")
    condition = root.named_children[0].child_by_field_name("condition")
    reader = VersionReader("2.12.0", FEATURES, HELPERS, companions={"torchvision": "0.27"})
    reader.start_unit()
    assert reader.note(condition, True) == "true at the target torch 2.12.0 (with torchvision 0.27, the release line built for it)"


def test_the_knowledge_base_pairs_torchvision_with_the_target_torch():
    from ascend_feasibility.analyzer.context.versions import companion_lines
    from ascend_feasibility.knowledge import load_knowledge
    kb = load_knowledge()
    assert companion_lines(kb, "2.12.0")["torchvision"] == "0.27"
    assert companion_lines(kb, "2.1.2")["torchvision"] == "0.16"
    # torchaudio 2.11 is built on torch's stable ABI and serves 2.11 and every later torch: 2.12 takes 2.11.1
    # (docs.pytorch.org/audio/2.11.0/installation.html, pytorch/audio v2.11.1)
    assert companion_lines(kb, "2.12.0")["torchaudio"] == "2.11.1"
    assert companion_lines(kb, "2.4.1")["torchaudio"] == "2.4.1"  # the exact torch first
