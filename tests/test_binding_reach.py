"""Kernels reached only through bindings no Python code calls are optional (llm-awq's old gemv_forward_cuda beside
gemv_forward_cuda_new); a build of an extension nothing imports whose sources an imported one compiles is optional;
one extension imported by many modules is one OPS013 finding listing them."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

OLD = """#include <torch/extension.h>
#include "gemv.h"

__global__ void gemv_kernel_old(const float* a, float* b) {
  __shared__ float t[32];
  b[0] = a[0];
}

torch::Tensor gemv_forward(torch::Tensor a) {
  auto out = torch::empty_like(a);
  gemv_kernel_old<<<1, 32>>>(a.data_ptr<float>(), out.data_ptr<float>());
  return out;
}
"""
NEW = """#include <torch/extension.h>
#include "gemv_new.h"

__global__ void gemv_kernel_new(const float* a, float* b) {
  __shared__ float t[32];
  b[0] = a[0];
}

void launch_new(const float* a, float* b) {
  gemv_kernel_new<<<1, 32>>>(a, b);
}

torch::Tensor gemv_forward_new(torch::Tensor a) {
  auto out = torch::empty_like(a);
  launch_new(a.data_ptr<float>(), out.data_ptr<float>());
  return out;
}
"""
BINDING = """#include <torch/extension.h>
#include "gemv.h"
#include "gemv_new.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("gemv_forward", &gemv_forward, "old");
  m.def("gemv_forward_new", &gemv_forward_new, "new");
}
"""
SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='quant_engine', ext_modules=[CUDAExtension(name='quant_engine', sources=['csrc/pybind.cpp', "
         "'csrc/gemv.cu', 'csrc/gemv_new.cu'])], cmdclass={'build_ext': BuildExtension})\n")
LINEAR = ("import torch\nimport quant_engine\n\n\nclass QLinear(torch.nn.Module):\n"
          "    def forward(self, x):\n        return quant_engine.gemv_forward_new(x)\n")
MLP = "import torch\nimport quant_engine\n\n\ndef mlp(x):\n    return quant_engine.gemv_forward_new(x) * 2\n"


def _tree(**changes: str | None) -> dict[str, str]:
    """The project with `changes` (None: the file is left out)."""
    files = {"kernels/setup.py": SETUP, "kernels/csrc/pybind.cpp": BINDING,
             "kernels/csrc/gemv.cu": OLD, "kernels/csrc/gemv.h": "#pragma once\n#include <torch/extension.h>\n"
                                                               "torch::Tensor gemv_forward(torch::Tensor a);\n",
             "kernels/csrc/gemv_new.cu": NEW, "kernels/csrc/gemv_new.h": "#pragma once\n#include <torch/extension.h>\n"
                                                                         "torch::Tensor gemv_forward_new(torch::Tensor a);\n",
             "pkg/__init__.py": "", "pkg/linear.py": LINEAR, "pkg/mlp.py": MLP,
             "run.py": "from pkg.linear import QLinear\nfrom pkg.mlp import mlp\n\nif __name__ == '__main__':\n    print(QLinear, mlp)\n"}
    files.update(changes)
    return {name: text for name, text in files.items() if text is not None}


def _kernels(report) -> dict[str, object]:
    return {f.path.rsplit("/", 1)[-1]: f for f in report.findings if f.rule in {"OPS001", "OPS002"}}


def test_a_kernel_only_an_uncalled_binding_reaches_is_optional_and_names_it(tmp_path):
    kernels = _kernels(analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "optional"
    assert "`quant_engine.gemv_forward` (bound at kernels/csrc/pybind.cpp:5)" in kernels["gemv.cu"].reach_reason
    assert "which no Python code of the project calls" in kernels["gemv.cu"].reach_reason
    # the op Python calls reaches its kernel through a launcher of its own
    assert kernels["gemv_new.cu"].reach == "runs"


def test_a_called_op_an_alias_or_a_lookup_by_name_keeps_the_kernel(tmp_path):
    for change in ({"pkg/old.py": "import quant_engine\n\nfn = quant_engine.gemv_forward\n"},  # an alias: the name is written
                   {"pkg/old.py": "import quant_engine\n\n\ndef op(name):\n    return getattr(quant_engine, name)\n"}):
        kernels = _kernels(analyze(write_tree(tmp_path / str(len(change["pkg/old.py"])), _tree(**change)), AnalyzeOptions(jobs=1)))
        assert kernels["gemv.cu"].reach == "runs", change


def test_a_launcher_another_source_calls_keeps_the_kernel(tmp_path):
    """gemv_forward_new also calls the old launcher: its kernel runs through the called op."""
    called = NEW.replace('#include "gemv_new.h"\n', '#include "gemv_new.h"\n#include "gemv.h"\n').replace(
        "  launch_new(a.data_ptr<float>(), out.data_ptr<float>());\n",
        "  launch_new(a.data_ptr<float>(), out.data_ptr<float>());\n  gemv_forward(a);\n")
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"kernels/csrc/gemv_new.cu": called})), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "runs"


def test_an_extension_no_python_file_imports_is_not_judged_by_its_bindings(tmp_path):
    """Its users are outside the tree: every binding may be called."""
    files = _tree(**{"pkg/linear.py": "import torch\n", "pkg/mlp.py": "import torch\n"})
    kernels = _kernels(analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "runs"


STANDALONE = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
              "setup(name='gemv_only', ext_modules=[CUDAExtension(name='gemv_only', sources=['gemv_new.cu'])],\n"
              "      cmdclass={'build_ext': BuildExtension})\n")


def test_a_build_of_an_extension_nothing_imports_whose_sources_an_imported_one_compiles_is_optional(tmp_path):
    report = analyze(write_tree(tmp_path, _tree(**{"kernels/csrc/setup.py": STANDALONE})), AnalyzeOptions(jobs=1))
    builds = {f.path: f for f in report.findings if f.rule == "OPS020"}
    assert builds["kernels/csrc/setup.py"].reach == "optional"
    assert "builds gemv_only, which no Python file of the project imports" in builds["kernels/csrc/setup.py"].reach_reason
    assert "compiled into quant_engine (kernels/setup.py:3)" in builds["kernels/csrc/setup.py"].reach_reason
    assert builds["kernels/setup.py"].reach == "runs"
    # imported by a module the entry loads, the standalone build is the product's (an importer nothing loads is
    # optional itself, and so would be the extension: propagation.extension_fallback)
    files = _tree(**{"kernels/csrc/setup.py": STANDALONE, "pkg/fast.py": "import gemv_only\n",
                     "run.py": "import pkg.fast\n" + _tree()["run.py"]})
    report = analyze(write_tree(tmp_path / "imported", files), AnalyzeOptions(jobs=1))
    assert next(f for f in report.findings if f.rule == "OPS020" and f.path == "kernels/csrc/setup.py").reach == "runs"


def test_one_extension_imported_by_many_modules_is_one_finding_with_its_sites(tmp_path):
    report = analyze(write_tree(tmp_path, _tree()), AnalyzeOptions(jobs=1))
    imports = [f for f in report.findings if f.rule == "OPS013"]
    assert len(imports) == 1, [(f.path, f.line) for f in imports]
    assert imports[0].sites == ["pkg/linear.py:2", "pkg/mlp.py:2"]
    assert "2 sites in 2 files" in imports[0].message.en and imports[0].reach == "runs"
    # an import with a fallback is not folded into the counted one
    guarded = "try:\n    import quant_engine\nexcept ImportError:\n    quant_engine = None\n"
    report = analyze(write_tree(tmp_path / "guarded", _tree(**{"pkg/mlp.py": guarded})), AnalyzeOptions(jobs=1))
    imports = sorted((f.path, f.reach, f.sites) for f in report.findings if f.rule == "OPS013")
    assert imports == [("pkg/linear.py", "runs", []), ("pkg/mlp.py", "optional", [])], imports


def test_declarations_in_a_header_the_binding_file_includes_keep_the_judgement(tmp_path):
    """csrc/ops.h declares what pybind.cpp binds; the sources include only torch. Another header that names the old
    launcher (an inline caller, perhaps) keeps its kernel."""
    ops = ("#pragma once\n#include <torch/extension.h>\ntorch::Tensor gemv_forward(torch::Tensor a);\n"
           "torch::Tensor gemv_forward_new(torch::Tensor a);\n")
    changes = {"kernels/csrc/ops.h": ops, "kernels/csrc/pybind.cpp": BINDING.replace('#include "gemv.h"\n#include "gemv_new.h"\n', '#include "ops.h"\n'),
               "kernels/csrc/gemv.cu": OLD.replace('#include "gemv.h"\n', ""),
               "kernels/csrc/gemv_new.cu": NEW.replace('#include "gemv_new.h"\n', ""),
               "kernels/csrc/gemv.h": None, "kernels/csrc/gemv_new.h": None}
    kernels = _kernels(analyze(write_tree(tmp_path / "declared", _tree(**changes)), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "optional"
    inline = "#pragma once\n#include <torch/extension.h>\ninline torch::Tensor twice(torch::Tensor a) { return gemv_forward(a); }\n"
    changes["kernels/csrc/inline_ops.h"] = inline
    kernels = _kernels(analyze(write_tree(tmp_path / "inline", _tree(**changes)), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "runs"


def test_a_kernel_the_top_level_names_may_run_from_anywhere(tmp_path):
    """A `#define` that launches the old kernel (used by a called op's code) or a table of kernel pointers names it
    outside any function: it stays reached."""
    macro = OLD.replace("__global__ void gemv_kernel_old", "#define LAUNCH_OLD(a, b) gemv_kernel_old<<<1, 32>>>(a, b)\n\n"
                        "__global__ void gemv_kernel_old")
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"kernels/csrc/gemv.cu": macro})), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "runs"


def test_a_build_whose_sources_are_joined_at_run_time_is_not_judged(tmp_path):
    """A source the list joins at run time may be one that calls the old launcher."""
    joined = SETUP.replace("'csrc/gemv_new.cu']", "'csrc/gemv_new.cu', os.path.join('csrc', 'extra.cu')]").replace(
        "from setuptools import setup\n", "import os\nfrom setuptools import setup\n")
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"kernels/setup.py": joined})), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "runs"


# BEVFusion's scatter_points.py (round 37 A1 class 4, A2 class 5, B2 class 2): the op is called only in an autograd
# Function whose alias and module nothing uses but the package's re-exports
OLD_OP = ("import torch\nfrom quant_engine import gemv_forward\n\n\nclass _OldGemv(torch.autograd.Function):\n"
          "    @staticmethod\n    def forward(ctx, x):\n        return gemv_forward(x)\n\n\nold_gemv = _OldGemv.apply\n\n\n"
          "class OldLinear(torch.nn.Module):\n    def forward(self, x):\n        return old_gemv(x)\n")
REEXPORT = "from .old_op import OldLinear, old_gemv\n\n__all__ = ['OldLinear', 'old_gemv']\n"


def test_an_op_called_only_by_a_wrapper_nothing_uses_but_re_exports_is_optional(tmp_path):
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"pkg/old_op.py": OLD_OP, "pkg/__init__.py": REEXPORT})),
                               AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "optional"
    assert "op `gemv_forward` is exported but never called: called only in" in kernels["gemv.cu"].reach_reason
    assert "OldLinear" in kernels["gemv.cu"].reach_reason and "pkg/old_op.py" in kernels["gemv.cu"].reach_reason
    assert kernels["gemv_new.cu"].reach == "runs"


def test_a_wrapper_used_outside_its_re_exports_keeps_the_kernel(tmp_path):
    run = "from pkg import OldLinear\n\nif __name__ == '__main__':\n    print(OldLinear()(1))\n"
    kernels = _kernels(analyze(write_tree(tmp_path, _tree(**{"pkg/old_op.py": OLD_OP, "pkg/__init__.py": REEXPORT,
                                                            "run.py": run})), AnalyzeOptions(jobs=1)))
    assert kernels["gemv.cu"].reach == "runs"

