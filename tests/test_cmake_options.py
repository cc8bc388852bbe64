"""CUDA sources only an opt-in CMake option compiles (domains/custom_ops/cmake_options.py): with `option(X ... OFF)`
and the source named only inside `if (X)`, and no documented build turning X on, the kernels and the CMake lines of
that arm are optional. An option that defaults ON, a README or Makefile build line passing `-DX=ON` (a test target's
does not count), or a source also named outside the arm keeps `runs`."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.domains.custom_ops.cmake_options import cmake_commands, read_cmake, switched_on

from tests.helpers import reported_at, write_tree

KERNEL = "#include <cuda_runtime.h>\n__global__ void soft_max_f32(float* x) { x[threadIdx.x] = 0; }\n"
TOP = 'cmake_minimum_required(VERSION 3.12)\nproject("ggml" C CXX)\noption(GGML_CUBLAS "ggml: use cuBLAS" {default})\nadd_subdirectory(src)\n'
SRC = ("if (GGML_CUBLAS)\n"
       "    find_package(CUDAToolkit)\n"
       "    if (CUDAToolkit_FOUND)\n"
       "        enable_language(CUDA)\n"
       "        set(GGML_CUDA_SOURCES ggml-cuda.cu ggml-cuda.h)\n"
       "    else()\n"
       "        message(WARNING \"cuBLAS not found\")\n"
       "    endif()\n"
       "endif()\n"
       "add_library(ggml ggml.c ${GGML_CUDA_SOURCES})\n")
MAKEFILE = "build:\n\tcmake -DGGML_OPENBLAS=ON -B build\n\ncuda_tests:\n\tcmake -DGGML_CUBLAS=ON -B build\n"


def _project(root, default="OFF", readme="", makefile=MAKEFILE, src=SRC):
    files = {"ggml/CMakeLists.txt": TOP.replace("{default}", default), "ggml/src/CMakeLists.txt": src,
             "ggml/src/ggml-cuda.cu": KERNEL, "ggml/src/ggml.c": "int ggml_init(void) { return 0; }\n",
             "Makefile": makefile}
    if readme:
        files["ggml/README.md"] = readme
    write_tree(root, files)
    found: dict[tuple[str, str], set[str]] = {}
    for f in analyze(root, AnalyzeOptions(jobs=1)).findings:
        for path in reported_at(f):
            found.setdefault((path.split(":")[0], f.rule), set()).add(f.reach)
    return found


def test_a_backend_only_an_off_option_compiles_is_optional(tmp_path):
    found = _project(tmp_path)
    assert found[("ggml/src/ggml-cuda.cu", "OPS001")] == {"optional"}
    cmake = [reach for (path, _rule), reach in found.items() if path == "ggml/src/CMakeLists.txt"]
    assert cmake and all(reach == {"optional"} for reach in cmake)  # enable_language(CUDA), find_package inside the arm


def test_an_option_on_by_default_or_turned_on_by_a_documented_build_runs(tmp_path):
    assert _project(tmp_path / "on", default="ON")[("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}
    readme = "## Build\n\n```bash\ncmake -DGGML_CUBLAS=ON ..\n```\n"
    assert _project(tmp_path / "doc", readme=readme)[("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}
    makefile = "build:\n\tcmake -DGGML_CUBLAS=ON -B build\n"
    assert _project(tmp_path / "make", makefile=makefile)[("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}


def test_a_source_also_named_outside_the_arm_runs(tmp_path):
    src = SRC + "add_library(ggml_cuda ggml-cuda.cu)\n"
    assert _project(tmp_path, src=src)[("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}


def test_reading_cmake_commands_options_and_arms():
    commands = cmake_commands('project("x") # if(NOT_A_COMMAND)\nset(A "a b" c)\nif (X AND Y)\nendif()\n')
    assert [(c.name, c.arguments, c.line) for c in commands] == [
        ("project", ("x",), 1), ("set", ("A", "a b", "c"), 2), ("if", ("X", "AND", "Y"), 3), ("endif", (), 4)]
    read = read_cmake("CMakeLists.txt", "option(A \"a\")\noption(B \"b\" ON)\nif (NOT A)\nset(S k.cu)\nendif()\n"
                                        "if (A OR B)\nset(T t.cu)\nendif()\nif (A)\nelse()\nset(U u.cu)\nendif()\n")
    assert read.options == [("A", False, "CMakeLists.txt:1"), ("B", True, "CMakeLists.txt:2")]
    assert [(name, needs) for _, _, name, needs in read.sources] == [("k.cu", ()), ("t.cu", ()), ("u.cu", ())]
    assert switched_on("all:\n\tcmake -DA=ON -DB:BOOL=TRUE -DC=OFF\ntest:\n\tcmake -DD=ON\n", "build") == {"A", "B"}
    assert switched_on("cmake -DD=ON ..\n", "shell") == {"D"}


HIP_ARM = ("if (GGML_HIPBLAS)\n"
           "    add_library(ggml-rocm OBJECT ggml-cuda.cu ggml-cuda.h)\n"
           "    set_source_files_properties(ggml-cuda.cu PROPERTIES LANGUAGE CXX)\n"
           "endif()\n")


def test_a_source_also_named_under_an_undefined_variable_beside_an_off_option_is_optional(tmp_path):
    """seamless_communication's ggml: ggml-cuda.cu is compiled under `if (GGML_CUBLAS)` (an option declared OFF) and
    under `if (GGML_HIPBLAS)`, a variable no CMake file or build sets (false in CMake): both are opt-in backends."""
    found = _project(tmp_path / "hip", src=SRC + HIP_ARM)
    assert found[("ggml/src/ggml-cuda.cu", "OPS001")] == {"optional"}
    # the variable set somewhere, or passed by a documented build: the ROCm arm may build the source
    assert _project(tmp_path / "set", src="set(GGML_HIPBLAS ON)\n" + SRC + HIP_ARM)[
        ("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}
    readme = "```bash\ncmake -DGGML_HIPBLAS=ON ..\n```\n"
    assert _project(tmp_path / "doc", src=SRC + HIP_ARM, readme=readme)[("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}


def test_an_undefined_variable_alone_proves_nothing(tmp_path):
    """`if (WITH_CUDA)` with no option() anywhere: a setup.py may pass -DWITH_CUDA=... in a way no reader sees."""
    src = "if (WITH_CUDA)\n    add_library(k ggml-cuda.cu)\nendif()\n"
    assert _project(tmp_path, src=src)[("ggml/src/ggml-cuda.cu", "OPS001")] == {"runs"}


def test_a_makefile_target_only_test_targets_depend_on_builds_for_tests():
    """ggml's Makefile: `build/src/libggml_cuda.so` passes -DGGML_CUBLAS=ON and only `cuda_tests` depends on it."""
    makefile = ("build: lib.so\n\tcmake -DGGML_OPENBLAS=ON ..\n\nlib_cuda.so: Makefile\n\tcmake -DGGML_CUBLAS=ON ..\n\n"
                "cuda_tests: lib_cuda.so\n\tpytest\n")
    assert switched_on(makefile, "build") == {"GGML_OPENBLAS"}
    # the default (first) target, or a target the documented build also depends on, counts
    assert switched_on("lib_cuda.so:\n\tcmake -DGGML_CUBLAS=ON ..\ntests: lib_cuda.so\n", "build") == {"GGML_CUBLAS"}
    shared = "build: lib_cuda.so\n\tmake\nlib_cuda.so:\n\tcmake -DGGML_CUBLAS=ON ..\ntests: lib_cuda.so\n"
    assert switched_on(shared, "build") == {"GGML_CUBLAS"}
