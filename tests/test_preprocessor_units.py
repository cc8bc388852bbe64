"""C/C++ sites inside a preprocessor branch on the NPU build (analyzer/context/preprocessor.py), on parsed snippets:
either arm of `#if defined(__ENABLE_CANN__)`, `#ifdef USE_NPU`, `#ifndef __ENABLE_CANN__` is `npu-path`, decided by
that directive."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import preprocessor
from ascend_feasibility.analyzer.reading import parsing


def node_at(code: str, needle: str, language: str = "cpp"):
    root = parsing.parse(language, code.encode())
    start = code.index(needle)
    return root.descendant_for_byte_range(start, start + len(needle))


def reason(code: str, needle: str, language: str = "cpp") -> str | None:
    found = preprocessor.npu_branch(node_at(code, needle, language))
    if found is None:
        return None
    assert found.reach == "npu-path"
    return found.reason()


CANN = "#if defined(__ENABLE_CANN__)\nint a = npu();\n#elif defined(USE_ROCM)\nint b = hip();\n#else\nint c = cuda();\n#endif\n"


@pytest.mark.parametrize("needle", ["npu", "hip", "cuda"])
def test_every_arm_of_an_npu_if_is_the_npu_ports_business(needle):
    assert reason(CANN, needle) == "line 1: #if defined(__ENABLE_CANN__)"


@pytest.mark.parametrize("language", ["cpp", "cuda"])
@pytest.mark.parametrize("directive", ["#ifdef USE_NPU", "#ifndef __ENABLE_CANN__", "#if ASCEND_BUILD",
                                       "#if defined(use_npu)", "#ifdef WITH_Ascend", "#if CANN_VERSION > 3"])
def test_each_npu_macro_spelling_is_read(directive, language):
    code = f"{directive}\nvoid f() {{ cudaStreamSynchronize(s); }}\n#endif\n"
    assert reason(code, "cudaStreamSynchronize", language) == f"line 1: {directive}"


def test_an_elif_naming_the_npu_decides_its_own_arm():
    code = "#if defined(USE_ROCM)\nint a = hip();\n#elif defined(USE_NPU)\nint b = npu();\n#else\nint c = cuda();\n#endif\n"
    assert reason(code, "npu()") == "line 3: #elif defined(USE_NPU)"
    assert reason(code, "cuda()") == "line 3: #elif defined(USE_NPU)"  # the #else hangs under the #elif
    assert reason(code, "hip()") is None


@pytest.mark.parametrize("code", [
    "#ifdef __CUDA_ARCH__\nint a = cuda();\n#endif\n",
    "#if defined(USE_ROCM)\nint a = cuda();\n#else\nint b = 0;\n#endif\n",
    "#define USE_NPU 1\nint a = cuda();\n",  # a define is no branch
    "int a = cuda(); // USE_NPU\n",
    "void f() { if (use_npu) { cuda(); } }\n",  # a C++ if is no preprocessor branch
])
def test_other_branches_and_plain_code_decide_nothing(code):
    assert reason(code, "cuda()") is None


def test_the_nearest_npu_branch_decides():
    code = "#ifdef USE_NPU\n#ifdef __CUDA_ARCH__\nint a = cuda();\n#endif\n#endif\n"
    assert reason(code, "cuda()") == "line 1: #ifdef USE_NPU"
    nested = "#ifdef WITH_CUDA\n#ifdef USE_NPU\nint a = cuda();\n#endif\n#endif\n"
    assert reason(nested, "cuda()") == "line 2: #ifdef USE_NPU"


def test_the_walk_starts_above_the_node_itself():
    root = parsing.parse("cpp", b"#ifdef USE_NPU\nint a;\n#endif\n")
    branch = root.named_children[0]
    assert branch.type == "preproc_ifdef"
    assert preprocessor.npu_branch(branch) is None
    assert preprocessor.npu_branch(root) is None


def _hops(node, kind: str) -> int:
    hops, current = 0, node
    while current.type != kind:
        current, hops = current.parent, hops + 1
    return hops


def test_the_walk_is_bounded_by_the_guard_depth(monkeypatch):
    code = "#ifdef USE_NPU\nint a = ((((cuda))));\n#endif\n"
    node = node_at(code, "cuda")
    hops = _hops(node, "preproc_ifdef")
    assert hops > 3
    monkeypatch.setattr(preprocessor, "MAX_DEPTH", hops)
    assert preprocessor.npu_branch(node) is not None
    monkeypatch.setattr(preprocessor, "MAX_DEPTH", hops - 1)
    assert preprocessor.npu_branch(node) is None


def test_a_branch_without_a_condition_names_nothing():
    # an #ifdef missing its name (broken input) still parses; it names no NPU macro
    for code in ["#ifdef\nint a = cuda();\n#endif\n", "#if\nint a = cuda();\n#endif\n"]:
        assert reason(code, "cuda()") is None
