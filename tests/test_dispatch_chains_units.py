"""Per-backend dispatch chains (analyzer/context/dispatch_chains.py) on parsed snippets, with the shipped backend words
(conventions [guards] cuda, [backends] dispatch and npu): which if/elif statements and runs of sibling ifs dispatch by
backend without an NPU arm, which arm is CUDA's, and the NPU arm written from it. Each expectation is read from the
module's docstrings."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import dispatch_chains as dc
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

CONVENTIONS = load_context_conventions()
WORDS = dc.backend_words(CONVENTIONS.guards, CONVENTIONS.backends)


def parsed(code: str):
    return parsing.parse("python", code.encode())


def node_at(root, code: str, needle: str, kind: str | None = None, occurrence: int = 0):
    start = -1
    for _ in range(occurrence + 1):
        start = code.index(needle, start + 1)
    node = root.descendant_for_byte_range(start, start + len(needle))
    while kind is not None and node.type != kind:
        node = node.parent
    return node


def chain(code: str, needle: str = "if", occurrence: int = 0):
    root = parsed(code)
    return dc.dispatch_chain(node_at(root, code, needle, "if_statement", occurrence), WORDS)


def text(node) -> str:
    return parsing.text(node)


def test_the_shipped_backend_words():
    assert WORDS.cuda == frozenset({"cuda"})
    assert WORDS.npu == frozenset({"npu", "ascend", "cann", "hccl"})
    assert WORDS.others == frozenset(CONVENTIONS.backends.dispatch)


def test_backend_words_split_names_and_drop_is_use_and_torch():
    guards = CONVENTIONS.guards.model_copy(update={"cuda": ["is_CUDA", "use_gpu_device", "Cuda_Available"]})
    backends = CONVENTIONS.backends.model_copy(update={"npu": ["torch_npu", "Ascend_CL"], "dispatch": ["xpu", "mps"]})
    words = dc.backend_words(guards, backends)
    assert words == dc.BackendWords(frozenset({"cuda", "gpu", "device", "available"}), frozenset({"xpu", "mps"}),
                                    frozenset({"npu", "ascend", "cl"}))


def test_words_read_identifiers_and_strings_split_at_underscores_and_colons():
    code = 'if HAS_CUDA and dev.type == "cuda:0" and Use_XPU(1.5, b"raw_bytes"):\n    pass\n'
    root = parsed(code)
    found = dc.words(node_at(root, code, "HAS_CUDA", "if_statement").child_by_field_name("condition"))
    assert found == {"has", "cuda", "dev", "type", "0", "use", "xpu", "raw", "bytes"}


# chains ------------------------------------------------------------------------------------------------------
ELIF = '''if device.type == "cuda":
    torch.cuda.empty_cache()
elif device.type == "xpu":
    torch.xpu.empty_cache()
elif device.type == "cpu":
    pass
'''


def test_an_if_elif_naming_cuda_and_another_accelerator_is_a_chain():
    found = chain(ELIF)
    assert found is not None
    assert text(found.head) == 'device.type == "cuda"'
    assert [text(c) for c, _ in found.arms] == ['device.type == "cuda"', 'device.type == "xpu"', 'device.type == "cpu"']
    assert found.named == frozenset({"cuda", "xpu"})
    assert found.else_body is None


def test_the_else_body_is_kept():
    code = 'if d == "cuda":\n    a = 1\nelif d == "mps":\n    a = 2\nelse:\n    a = 3\n'
    found = chain(code)
    assert text(found.else_body) == "a = 3"


@pytest.mark.parametrize("code", [
    'if d == "cuda":\n    a = 1\nelif d == "cpu":\n    a = 2\n',  # no other accelerator
    'if d == "xpu":\n    a = 1\nelif d == "mps":\n    a = 2\n',  # no CUDA
    'if d == "cuda" or d == "xpu":\n    a = 1\nelse:\n    a = 2\n',  # one arm names both
    'if d == "cuda":\n    a = 1\nelif d == "xpu":\n    a = 2\nelif d == "npu":\n    a = 3\n',  # an NPU arm
    'if d == "cuda":\n    a = 1\nelif d == "xpu":\n    a = 2\nelif is_ascend():\n    a = 3\n',
    'if d != "npu":\n    if d == "cuda":\n        a = 1\n    elif d == "xpu":\n        a = 2\n',  # inside an NPU branch
    'if d == "cuda":\n    ext = CUDAExtension\nelif d == "hip":\n    ext = HIPExtension\n',  # a build branch
    'x = 1\n',
])
def test_what_is_no_chain(code):
    root = parsed(code)
    statements = [n for n in _all(root) if n.type == "if_statement"] or root.named_children
    assert all(dc.dispatch_chain(s, WORDS) is None for s in statements)


def _all(node):
    stack, found = [node], []
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(reversed(current.named_children))
    return found


def test_the_elif_of_a_chain_in_an_npu_elif_is_inside_an_npu_branch():
    code = 'if a:\n    pass\nelif on_npu:\n    if d == "cuda":\n        x = 1\n    elif d == "xpu":\n        x = 2\n'
    assert chain(code, 'if d', 0) is None


def test_a_generic_else_that_builds_the_compared_device_serves_every_device():
    code = ('def get(try_device):\n    if try_device == "cuda":\n        device = torch.device("cuda")\n'
            '    elif try_device == "mps":\n        device = torch.device("mps")\n'
            '    else:\n        device = torch.device(try_device)\n')
    assert chain(code, "if try_device") is None
    other = code.replace("torch.device(try_device)", "torch.device(name)")
    assert chain(other, "if try_device") is not None
    attr = code.replace('try_device == "cuda"', 'cfg.dev.startswith("cuda")').replace("torch.device(try_device)",
                                                                                     "torch.device(cfg.dev)")
    assert chain(attr, "if cfg") is None
    obj = attr.replace("torch.device(cfg.dev)", "torch.device(cfg)")
    assert chain(obj, "if cfg") is None  # the object of a compared attribute is compared too
    not_device = code.replace("torch.device(try_device)", "print(try_device)")
    assert chain(not_device, "if try_device") is not None
    no_args = code.replace("torch.device(try_device)", "torch.device()")
    assert chain(no_args, "if try_device") is not None
    second = code.replace("torch.device(try_device)", "torch.device(0, try_device)")
    assert chain(second, "if try_device") is not None
    nested = code.replace("device = torch.device(try_device)", "if ok:\n            device = get_device(try_device)")
    assert chain(nested, "if try_device") is None


def test_compared_names_are_bounded():
    condition = parsed(" and ".join(f"n{i} == 'cuda'" for i in range(30)) + "\n").named_children[0].named_children[0]
    assert len(dc._compared_names(condition)) == 20
    small = parsed("a.b.c == d\n").named_children[0].named_children[0]
    assert sorted(text(n) for n in dc._compared_names(small)) == ["a", "a.b", "a.b.c", "d"]


# runs of separate ifs ----------------------------------------------------------------------------------------
RUN = '''def free(device):
    x = 1
    if device.type == "cuda":
        torch.cuda.empty_cache()
    # between
    if device.type == "xpu":
        torch.xpu.empty_cache()
    if device.type == "mps":
        torch.mps.empty_cache()
    y = 2
'''


@pytest.mark.parametrize("occurrence", [0, 1, 2])
def test_sibling_ifs_are_one_chain_from_any_member(occurrence):
    root = parsed(RUN)
    member = node_at(root, RUN, "if device", "if_statement", occurrence)
    run = dc.sibling_run(member, WORDS.cuda | WORDS.others | WORDS.npu)
    assert [text(s.child_by_field_name("condition")) for s in run] == [
        'device.type == "cuda"', 'device.type == "xpu"', 'device.type == "mps"']
    found = dc.dispatch_chain(member, WORDS)
    assert found is not None and text(found.head) == 'device.type == "cuda"' and found.else_body is None
    assert found.named == frozenset({"cuda", "xpu", "mps"})


def test_a_statement_not_in_a_run_is_its_own_run():
    code = 'if x:\n    pass\nif d == "cuda":\n    pass\nelse:\n    pass\n'
    root = parsed(code)
    for index in (0, 1):
        statement = root.named_children[index]
        assert dc.sibling_run(statement, WORDS.cuda | WORDS.others) == [statement]


def test_a_run_breaks_at_an_if_with_an_else_or_without_a_backend():
    code = ('if a == "xpu":\n    f()\nelse:\n    g()\nif b == "cuda":\n    f()\nif c == "hip":\n    f()\n'
            'if ok:\n    f()\nif e == "mps":\n    f()\n')
    root = parsed(code)
    run = dc.sibling_run(root.named_children[1], WORDS.cuda | WORDS.others)
    assert [s.start_point.row for s in run] == [4, 6]


def test_runs_are_bounded():
    many = "".join(f'if d == "{"cuda" if i % 2 else "xpu"}{i}":\n    torch.cuda.empty_cache()\n' for i in range(30))
    many = many.replace('"cuda', '"cuda_').replace('"xpu', '"xpu_')
    root = parsed(many)
    every = WORDS.cuda | WORDS.others
    first = dc.sibling_run(root.named_children[0], every)
    assert len(first) == dc.MAX_RUN and first[0].start_point.row == 0
    last = dc.sibling_run(root.named_children[29], every)
    assert len(last) == dc.MAX_RUN and last[0].start_point.row == 2 * 17 and last[-1].start_point.row == 2 * 28
    middle = dc.sibling_run(root.named_children[12], every)
    assert [s.start_point.row // 2 for s in middle] == list(range(0, 12))
    at_thirteen = dc.sibling_run(root.named_children[13], every)
    assert [s.start_point.row // 2 for s in at_thirteen] == list(range(1, 13))


@pytest.mark.parametrize("bodies, expected", [
    (("torch.cuda.empty_cache()", "torch.xpu.empty_cache()"), True),
    (("device = 'a'", "device = 'b'"), True),
    (("self.dev = 1", "self.dev = 2"), True),
    (("return 1", "return 2"), True),
    (("torch.cuda.synchronize()", "torch.xpu.empty_cache()"), False),
    (("a = 1", "b = 2"), False),
    (("a[0] = 1", "a[0] = 2"), False),  # a subscript target is not compared
    (("print(torch.version.cuda.split('.'))", "print(torch.version.xpu.split('.'))"), False),
    (("warn('cuda')", "warn('xpu')"), False),
    (("f.cuda.empty_cache()", "f.xpu.empty_cache()"), False),
    (("torch.cuda.empty_cache()", "x = 1", "torch.npu.empty_cache()"), True),
    (("empty_cache()", "empty_cache()"), False),
])
def test_separate_ifs_dispatch_only_when_two_bodies_do_the_same(bodies, expected):
    names = ["cuda", "xpu", "mps"]
    code = "".join(f'if d == "{names[i]}":\n    {body}\n' for i, body in enumerate(bodies))
    found = chain(code)
    assert (found is not None) is expected


def test_the_walk_of_a_body_is_bounded():
    filler = "    x = [" + ", ".join("a" for _ in range(2000)) + "]\n"
    # the walk takes a block's last statement first: the assignment before the long list is not reached
    code = f'if d == "cuda":\n    device = 1\n{filler}if d == "xpu":\n    device = 2\n'
    assert chain(code) is None
    code = f'if d == "cuda":\n{filler}    device = 1\nif d == "xpu":\n    device = 2\n'
    assert chain(code) is not None


# CUDAExtension -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, expected", [
    ("ext = CUDAExtension", True),
    ("ext = cpp_extension.CUDAExtension", True),
    ("exts = [CUDAExtension]", True),
    ("ext = CUDAExtension('a', ['a.cu'])", False),
    ("ext = cpp_extension.CUDAExtension('a', ['a.cu'])", False),
    ("ext = CUDAExtension\n    ext2 = CUDAExtension('b', [])", False),
    ("from torch.utils.cpp_extension import CUDAExtension", False),
    ("import CUDAExtension as C", False),
    ("x = CUDAExtension.__name__", False),
    ("ext = CppExtension", False),
])
def test_a_branch_that_selects_cuda_extension(body, expected):
    code = f"if ok:\n    {body}\n"
    root = parsed(code)
    assert dc.selects_cuda_extension(root.named_children[0].child_by_field_name("consequence")) is expected


# the CUDA arm and the NPU arm --------------------------------------------------------------------------------
@pytest.mark.parametrize("code, index, expected", [
    (ELIF, 0, True), (ELIF, 1, False), (ELIF, 2, False),
    ('if d != "cuda":\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, False),
    ('if not use_cuda:\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, False),
    ('if (not use_cuda):\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, False),
    ('if d not in ("cuda",):\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, False),
    ('if t is not cuda_type:\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, False),
    ('if (d == "cuda"):\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, True),
    ('if d in ("cuda",):\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, True),
    ('if d == "cuda" and e == "mps":\n    a = 1\nelif d == "xpu":\n    a = 2\n', 0, False),
])
def test_the_cuda_arm(code, index, expected):
    found = chain(code)
    assert found is not None
    body = found.arms[index][1]
    assert dc.cuda_arm(found, body, WORDS) is expected


def test_a_body_that_is_no_arm_is_not_the_cuda_arm():
    found = chain(ELIF)
    root = parsed(ELIF)
    assert dc.cuda_arm(found, root, WORDS) is False
    # an arm is matched by its span alone: the same code parsed again is the same arm
    again = chain(ELIF)
    assert dc.cuda_arm(found, again.arms[0][1], WORDS) is True
    assert dc.cuda_arm(found, again.arms[1][1], WORDS) is False


def test_an_arm_that_starts_where_the_cuda_arm_starts_but_ends_elsewhere_is_not_it():
    other = chain('if d == "cuda":\n    a = 1\n    b = 2\nelif d == "xpu":\n    a = 2\n')
    first = other.arms[0][1].named_children[0]
    assert first.start_byte == other.arms[0][1].start_byte and dc.cuda_arm(other, first, WORDS) is False


@pytest.mark.parametrize("code, arm", [
    (ELIF, 'if device.type == "npu":\n    ...'),
    ('if torch.cuda.is_available():\n    a = 1\nelif torch.xpu.is_available():\n    a = 2\n',
     "if torch.npu.is_available():\n    ..."),
    ('if HAS_CUDA:\n    a = 1\nelif HAS_XPU:\n    a = 2\n', None),  # HAS_NPU is no name the project has
    ('if args.use_cuda:\n    a = 1\nelif args.use_xpu:\n    a = 2\n', None),
    ('if (device.type ==\n        "cuda"):\n    a = 1\nelif d == "xpu":\n    a = 2\n', 'if (device.type == "npu"):\n    ...'),
    ('if not on_cuda:\n    a = 1\nelif d == "xpu":\n    a = 2\n', None),  # no CUDA arm
    ('if d == "xpu":\n    a = 1\nelif d == "cuda":\n    a = 2\n', 'if d == "npu":\n    ...'),
])
def test_the_npu_arm_is_the_cuda_arms_condition_renamed(code, arm):
    assert dc.npu_arm(chain(code), WORDS) == arm


@pytest.mark.parametrize("source, expected", [
    ('device.type == "cuda"', 'device.type == "npu"'),
    ("torch.cuda.empty_cache()", "torch.npu.empty_cache()"),
    ("HAS_CUDA or is_cuda(x)", "HAS_NPU or is_npu(x)"),
    ('f"cuda:{rank}"', 'f"npu:{rank}"'),
    ('"Cuda" + "CUDA_VISIBLE_DEVICES"', '"Npu" + "NPU_VISIBLE_DEVICES"'),
    ("cudaMalloc(x)", "cudaMalloc(x)"),
    ("x = 'ä' + cuda", "x = 'ä' + npu"),
])
def test_npu_text_renames_cuda_words(source, expected):
    node = parsed(source + "\n").named_children[0]
    assert dc.npu_text(node, WORDS) == expected


@pytest.mark.parametrize("source, expected", [
    ('device.type == "cuda:0"', 'device.type == "npu:0"'),
    ("torch.cuda.is_available()", "torch.npu.is_available()"),
    ("HAS_CUDA", None), ("args.use_cuda", None), ("cuda.is_available()", None), ("x.cuda.y", None),
    ("torch.Cuda.x", None),
])
def test_npu_text_with_torch_names_only(source, expected):
    node = parsed(source + "\n").named_children[0]
    assert dc.npu_text(node, WORDS, torch_names_only=True) == expected


def test_npu_text_reads_a_bounded_number_of_nodes():
    # the walk takes the last element first: the first one is past the bound
    source = "['cuda', " + ", ".join("a" for _ in range(2000)) + "]"
    node = parsed(source + "\n").named_children[0]
    assert dc.npu_text(node, WORDS) == source
    near = "[" + ", ".join("a" for _ in range(2000)) + ", 'cuda']"
    assert dc.npu_text(parsed(near + "\n").named_children[0], WORDS) == near.replace("cuda", "npu")


def test_npu_text_keeps_the_lines():
    node = parsed('if (a ==\n        "cuda"):\n    pass\n').named_children[0].child_by_field_name("condition")
    assert dc.npu_text(node, WORDS) == '(a ==\n        "npu")'


@pytest.mark.parametrize("word, expected", [
    ("cuda", "npu"), ("CUDA", "NPU"), ("Cuda", "Npu"), ("cUda", "Npu"), ("use_cuda", "use_npu"),
    ("cuda:1", "npu:1"), ("a:cuda_b", "a:npu_b"), ("cudax", None), ("gpu", None), ("cuda_cuda", "npu_npu"),
    ("x_:_y", None),
])
def test_renamed(word, expected):
    assert dc._renamed(word, WORDS.cuda) == expected


def test_torch_module():
    root = parsed("torch.cuda\nx.cuda\ncuda\ntorch.xpu\ncuda.torch\n")
    idents = [n for n in _all(root) if n.type == "identifier"]
    found = [(text(n.parent), text(n)) for n in idents if dc._torch_module(n)]
    assert found == [("torch.cuda", "cuda")]


# NPU branches --------------------------------------------------------------------------------------------------
def test_inside_npu_branch_and_lacks_npu_arm():
    code = 'if x.device.type != "npu":\n    if d == "cuda":\n        a = 1\nelse:\n    b = 2\n'
    root = parsed(code)
    inner = node_at(root, code, 'if d', "if_statement")
    assert dc.inside_npu_branch(inner, WORDS.npu) is True
    assert dc.lacks_npu_arm(inner, WORDS.npu) is False
    outer = root.named_children[0]
    assert dc.inside_npu_branch(outer, WORDS.npu) is False
    assert dc.lacks_npu_arm(outer, WORDS.npu) is False  # its own condition names it
    plain = parsed('if d == "cuda":\n    a = 1\nelif d == "xpu":\n    a = 2\n').named_children[0]
    assert dc.lacks_npu_arm(plain, WORDS.npu) is True
    elif_npu = parsed('if d == "cuda":\n    a = 1\nelif d == "npu":\n    a = 2\n').named_children[0]
    assert dc.lacks_npu_arm(elif_npu, WORDS.npu) is False
    code = 'while on_npu:\n    if d == "cuda":\n        a = 1\n'
    assert dc.inside_npu_branch(node_at(parsed(code), code, "if d", "if_statement"), WORDS.npu) is False
    code = 'if a:\n    pass\nelif use_ascend:\n    if d == "cuda":\n        a = 1\n'
    assert dc.inside_npu_branch(node_at(parsed(code), code, "if d", "if_statement"), WORDS.npu) is True


def test_chain_arms_reads_if_and_elif_not_else():
    code = 'if a:\n    x = 1\nelif b:\n    x = 2\nelif c:\n    x = 3\nelse:\n    x = 4\n'
    arms = dc.chain_arms(parsed(code).named_children[0])
    assert [(text(c), text(b)) for c, b in arms] == [("a", "x = 1"), ("b", "x = 2"), ("c", "x = 3")]


def test_two_arms_must_each_name_a_backend():
    assert chain('if d == "cuda" or d == "xpu":\n    a = 1\nelif x:\n    a = 2\n') is None


def test_cuda_in_two_arms_is_no_dispatch_without_another_accelerator():
    assert chain('if d == "cuda:0":\n    a = 1\nelif d == "cuda:1":\n    a = 2\n') is None


def test_an_if_elif_chain_needs_no_parallel_bodies():
    found = chain('if d == "cuda":\n    a = 1\nelif d == "xpu":\n    b = 2\n')
    assert found is not None and found.named == frozenset({"cuda", "xpu"})
    # separate ifs do
    assert chain('if d == "cuda":\n    a = 1\nif d == "xpu":\n    b = 2\n') is None


def test_importing_something_as_cuda_extension_is_no_selection():
    for body in ("from x import y as CUDAExtension", "import y as CUDAExtension"):
        root = parsed(f"if ok:\n    {body}\n")
        assert dc.selects_cuda_extension(root.named_children[0].child_by_field_name("consequence")) is False


def test_an_if_that_does_not_name_the_npu_is_no_npu_branch():
    code = 'if ok:\n    if d == "cuda":\n        a = 1\n'
    assert dc.inside_npu_branch(node_at(parsed(code), code, "if d", "if_statement"), WORDS.npu) is False


def test_npu_text_of_undecodable_bytes_replaces_them():
    root = parsing.parse("python", b'x = "\xff" + "cuda"\n')
    assert dc.npu_text(root.named_children[0], WORDS) == 'x = "\ufffd" + "npu"'


def _order(node) -> list:
    """The nodes in the order the module's bounded walks take them (the last child first)."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.named_children)
    return found


def _filler(size: int) -> str:
    """A statement of exactly `size` named nodes: `x = [a, ...]` is 4 nodes and one per element."""
    return "x = [" + ", ".join("a" for _ in range(size - 4)) + "]"


@pytest.mark.parametrize("position, found", [(1600, True), (1601, False)])
def test_each_body_is_walked_for_its_first_1600_nodes(position, found):
    # the body's block, the filler (taken first: it is the last statement), then `device = 1`'s statement and the
    # assignment: the assignment is node number size(filler) + 3
    code = f'if d == "cuda":\n    device = 1\n    {_filler(position - 3)}\nif d == "xpu":\n    device = 2\n'
    root = parsed(code)
    body = root.named_children[0].child_by_field_name("consequence")
    assignment = next(i for i, n in enumerate(_order(body)) if n.type == "assignment" and text(n) == "device = 1")
    assert assignment + 1 == position
    assert (chain(code) is not None) is found


@pytest.mark.parametrize("position, renamed", [(1600, True), (1601, False)])
def test_npu_text_reads_the_first_1600_nodes(position, renamed):
    def source(elements: int) -> str:
        return "['cuda', " + ", ".join("a" for _ in range(elements)) + "]"
    base = _order(parsed(source(0) + "\n").named_children[0])
    content = next(i for i, n in enumerate(base) if n.type == "string_content")
    code = source(position - 1 - content)  # each element is one node taken before the string
    node = parsed(code + "\n").named_children[0]
    assert next(i for i, n in enumerate(_order(node)) if n.type == "string_content") + 1 == position
    assert (dc.npu_text(node, WORDS) == code.replace("cuda", "npu")) is renamed


def test_a_condition_whose_words_name_a_backend_spells_it():
    """may_name lets a chain skip the walk of a condition whose text spells no backend word: it must hold wherever the
    words do, over every if/elif condition of the samples and the tests (identifiers split at `_`, `cuda:0` strings,
    upper case, attribute chains)."""
    from pathlib import Path

    every = WORDS.cuda | WORDS.others | WORDS.npu
    query = parsing.query("python", "(if_statement condition: (_) @c) (elif_clause condition: (_) @c)")
    here = Path(__file__).resolve().parent
    named = 0
    for path in sorted(here.parent.joinpath("sample_projects").rglob("*.py")) + sorted(here.rglob("*.py")):
        for condition in parsing.captures(query, parsing.parse("python", path.read_bytes())).get("c", []):
            for word in every:
                if word in dc.words(condition):
                    named += 1
                    assert dc.may_name(condition, frozenset({word})), parsing.text(condition)
    assert named >= 10
    assert not dc.may_name(parsed("if args.fp16 and step > 0:\n    pass\n").children[0].child_by_field_name("condition"), every)
