"""Native extensions the project falls back from (fairseq's lightconv_cuda, libnat_cuda) are optional; one some code
needs without a fallback stays counted; DCNv3 is not sent to npu_deformable_conv2d."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import scan, write_tree

KERNEL = "__global__ void lightconv_forward_kernel(const float* input, float* output) {\n  __shared__ float t[32];\n}\n"
BINDING = ("#include <torch/extension.h>\n"
           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward\", &lightconv_forward);\n}\n")
SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='lightconv_layer', ext_modules=[CUDAExtension('lightconv_cuda', "
         "['lightconv_cuda.cpp', 'lightconv_cuda_kernel.cu'])], cmdclass={'build_ext': BuildExtension})\n")
LAYER = "import torch\nimport lightconv_cuda\n\n\nclass LightconvLayer(torch.nn.Module):\n    pass\n"
GUARDED = """import torch


def LightweightConv(input_size):
    if torch.cuda.is_available():
        try:
            from pkg.lightconv_layer import LightconvLayer

            return LightconvLayer(input_size)
        except ImportError as e:
            print(e)
    return LightweightConv1dTBC(input_size)


class LightweightConv1dTBC(torch.nn.Module):
    pass
"""
PLAIN = "from pkg.lightconv_layer import LightconvLayer\n\n\ndef LightweightConv(input_size):\n    return LightconvLayer(input_size)\n"


def _tree(tmp_path, user: str) -> dict[str, str]:
    return {"setup.py": "from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n",
            "pkg/__init__.py": "", "pkg/model.py": "from pkg.lightweight_convolution import LightweightConv\n",
            "pkg/lightweight_convolution.py": user,
            "pkg/lightconv_layer/__init__.py": "from .lightconv_layer import LightconvLayer\n",
            "pkg/lightconv_layer/lightconv_layer.py": LAYER,
            "pkg/lightconv_layer/setup.py": SETUP,
            "pkg/lightconv_layer/lightconv_cuda.cpp": BINDING,
            "pkg/lightconv_layer/lightconv_cuda_kernel.cu": KERNEL}


def _native(report):
    return [f for f in report.findings if f.path.startswith("pkg/lightconv_layer/") and f.rule.startswith("OPS")]


def test_an_extension_with_a_fallback_is_optional_and_names_it(tmp_path):
    report = analyze(write_tree(tmp_path, _tree(tmp_path, GUARDED)), AnalyzeOptions(jobs=1))
    kernels = [f for f in _native(report) if f.path.endswith(".cu")]
    assert kernels and all(f.reach == "optional" for f in kernels)
    assert "falls back to LightweightConv1dTBC (pkg/lightweight_convolution.py:5)" in kernels[0].reach_reason
    assert all(f.reach != "runs" for f in _native(report)), [(f.rule, f.path, f.reach) for f in _native(report)]


def test_an_extension_imported_without_a_fallback_stays_counted(tmp_path):
    report = analyze(write_tree(tmp_path, _tree(tmp_path, PLAIN)), AnalyzeOptions(jobs=1))
    kernels = [f for f in _native(report) if f.path.endswith(".cu")]
    assert kernels and all(f.reach == "runs" for f in kernels)


def test_a_handler_that_imports_a_cpu_build_is_the_fallback(tmp_path):
    files = {"setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CppExtension\n"
                          "setup(name='pkg', ext_modules=[CppExtension('pkg.libnat', ['pkg/clib/libnat/edit_dist.cpp']),\n"
                          "    CUDAExtension('pkg.libnat_cuda', ['pkg/clib/libnat_cuda/edit_dist.cu', 'pkg/clib/libnat_cuda/binding.cpp'])])\n"),
             "pkg/__init__.py": "", "pkg/clib/libnat_cuda/edit_dist.cu": KERNEL.replace("lightconv_forward", "levenshtein"),
             "pkg/utils.py": ("def load_libnat():\n    try:\n        from pkg import libnat_cuda\n        return libnat_cuda, True\n"
                              "    except ImportError as e:\n        print(str(e))\n        from pkg import libnat\n"
                              "        return libnat, False\n")}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    kernels = [f for f in report.findings if f.path.endswith(".cu")]
    assert kernels and all(f.reach == "optional" for f in kernels)
    assert "falls back to libnat (pkg/utils.py:2)" in kernels[0].reach_reason
    # a handler that re-raises is no fallback
    files["pkg/utils.py"] = "def load_libnat():\n    try:\n        from pkg import libnat_cuda\n    except ImportError:\n        raise\n"
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    assert all(f.reach == "runs" for f in report.findings if f.path.endswith(".cu"))


def test_dcnv3_is_not_sent_to_the_dcnv2_operator():
    v3 = "template <typename T>\n__global__ void dcnv3_im2col_gpu_kernel(const int n, const T* data_im) {}\n"
    finding = {f.rule: f for f in scan(v3, "cuda").findings}["OPS001"]
    text = finding.replacement.en
    assert "pure-PyTorch DCNv3" in text and "no torch_npu operator computes DCNv3" in text and "DCNv3_pytorch" in text
    assert "npu_deformable_conv2d is DCNv1/v2" in text and "modulated=True" not in text
    v2 = "template <typename T>\n__global__ void modulated_deformable_col2im_gpu_kernel(const int n, const T* col) {}\n"
    text = {f.rule: f for f in scan(v2, "cuda").findings}["OPS001"].replacement.en
    assert "npu_deformable_conv2d" in text and "modulated=True with the mask for DCNv2" in text


def test_a_module_level_flag_is_no_named_fallback():
    from ascend_feasibility.analyzer.context.import_fallbacks import import_fallback
    from ascend_feasibility.analyzer.reading import parsing

    def read(source: str):
        root = parsing.parse("python", source.encode())
        found = parsing.captures(parsing.query("python", "(import_from_statement) @i"), root)
        return import_fallback(found["i"][0])

    # fairseq/ngram_repeat_block.py: the handler sets a flag that a check reads; the def after the try is no fallback
    flag = "try:\n    from pkg import ext_cuda\n    BUILT = True\nexcept ImportError:\n    BUILT = False\n\n\n"
    assert read(flag + "def usable():\n    if not BUILT or not torch.cuda.is_available():\n        return False\n"
                "    return True\n") == (9, "the code that checks BUILT")
    assert read(flag + "def usable():\n    return torch.cuda.is_available()\n") is None  # never checked
    assert read(flag + "def forward(x):\n    if not BUILT:\n        raise RuntimeError('build ext_cuda')\n"
                "    return ext_cuda.forward(x)\n") is None  # the check only raises
    assert read("try:\n    from apex.normalization import FusedLayerNorm\nexcept ImportError:\n"
                "    FusedLayerNorm = torch.nn.LayerNorm\n") == (1, "torch.nn.LayerNorm")


def test_a_cuda_only_check_with_a_fallback_after_it_selects_the_extension(tmp_path):
    user = ("import torch\n\n\ndef LightweightConv(input_size):\n    if torch.cuda.is_available():\n"
            "        from pkg.lightconv_layer import LightconvLayer\n        return LightconvLayer(input_size)\n"
            "    return LightweightConv1dTBC(input_size)\n")
    report = analyze(write_tree(tmp_path, _tree(tmp_path, user)), AnalyzeOptions(jobs=1))
    kernels = [f for f in _native(report) if f.path.endswith(".cu")]
    assert kernels and all(f.reach == "optional" for f in kernels)
    assert "falls back to LightweightConv1dTBC (pkg/lightweight_convolution.py:5)" in kernels[0].reach_reason


def test_one_deformable_operator_is_counted_once(tmp_path):
    kernels = "".join(f"template <typename T>\n__global__ void dcnv3_{name}_gpu_kernel(const int n, const T* d) {{}}\n"
                      for name in ("im2col", "col2im", "col2im_shm"))
    report = analyze(write_tree(tmp_path, {"pkg/__init__.py": "", "ops_dcnv3/src/cuda/dcnv3_im2col_cuda.cuh": kernels}),
                     AnalyzeOptions(jobs=1))
    item = next(i for i in report.effort.items if i.rule == "OPS001")
    assert item.patterns == 3 and "counted once" in item.arithmetic.en
    assert item.arithmetic.en.count("= 0.0 h") == 2


def test_what_follows_a_guard_is_a_fallback_only_when_the_guarded_block_returns():
    from ascend_feasibility.analyzer.context.import_fallbacks import import_fallback
    from ascend_feasibility.analyzer.reading import parsing

    def read(source: str, cuda_only: bool = False):
        root = parsing.parse("python", source.encode())
        found = parsing.captures(parsing.query("python", "(import_from_statement) @i"), root)
        return import_fallback(found["i"][0], cuda_only)

    returns = "def make():\n    if torch.cuda.is_available():\n        from ext import Layer\n        return Layer()\n"
    assert read(returns + "    return TorchLayer()\n", cuda_only=True) == (2, "TorchLayer")
    goes_on = "def make():\n    if torch.cuda.is_available():\n        from ext import Layer\n        layer = Layer()\n"
    assert read(goes_on + "    return compute(layer)\n", cuda_only=True) is None
    assert read(returns + "    raise RuntimeError('needs CUDA')\n", cuda_only=True) is None
    assert read("def make():\n    try:\n        from ext import Layer\n    except ImportError:\n        sys.exit(1)\n") is None


HELPER = ("import torch\n\n\ndef connected_components(mask):\n    from pkg import _C\n\n"
          "    return _C.get_connected_componnets(mask.contiguous())\n\n\n"
          "def fill_holes(mask):\n    try:\n        labels = connected_components(mask)\n        mask = labels > 0\n"
          "    except Exception as e:\n        warnings.warn(f'{e}: skipping the post-processing step')\n    return mask\n")
CALLER = ("import torch\n\n\nclass Transforms:\n    def postprocess(self, masks):\n"
          "        from pkg.misc import connected_components\n\n        try:\n            labels = connected_components(masks)\n"
          "            masks = labels > 0\n        except Exception as e:\n            warnings.warn(str(e))\n        return masks\n")


def _skipping_tree(caller: str, helper: str = HELPER) -> dict[str, str]:
    # sam2's setup.py: the sources are a list bound to a name, the build allows errors
    return {"setup.py": ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n\n"
                         "def get_extensions():\n    try:\n        srcs = ['pkg/csrc/cc.cu']\n"
                         "        return [CUDAExtension('pkg._C', srcs)]\n    except Exception as e:\n        print(e)\n"
                         "        return []\n\n\nsetup(name='pkg', packages=['pkg'], ext_modules=get_extensions())\n"),
            "pkg/__init__.py": "", "pkg/misc.py": helper, "pkg/transforms.py": caller,
            "pkg/predictor.py": "from pkg.misc import fill_holes\nfrom pkg.transforms import Transforms\n",
            "pkg/csrc/cc.cu": KERNEL + BINDING.replace("#include <torch/extension.h>\n", "")}


def test_an_extension_whose_helper_every_caller_catches_is_optional_the_step_skipped(tmp_path):
    report = analyze(write_tree(tmp_path, _skipping_tree(CALLER)), AnalyzeOptions(jobs=1))
    native = [f for f in report.findings if f.path == "pkg/csrc/cc.cu" and f.rule.startswith("OPS")]
    assert {f.rule for f in native} >= {"OPS002", "OPS010"}
    assert all(f.reach == "optional" for f in native), [(f.rule, f.reach) for f in native]
    reason = native[0].reach_reason
    assert "connected_components()" in reason and "that step is skipped" in reason
    assert "pkg/misc.py:14" in reason and "pkg/transforms.py:11" in reason


def test_a_call_of_the_helper_outside_a_catching_try_keeps_the_extension_required(tmp_path):
    uncaught = ("import torch\n\n\nclass Transforms:\n    def postprocess(self, masks):\n"
                "        from pkg.misc import connected_components\n\n        return connected_components(masks) > 0\n")
    reraised = CALLER.replace("warnings.warn(str(e))", "raise")
    in_own_file = HELPER + "\n\ndef labels_of(mask):\n    return connected_components(mask)\n"
    for caller, helper in ((uncaught, HELPER), (reraised, HELPER), (CALLER, in_own_file)):
        report = analyze(write_tree(tmp_path, _skipping_tree(caller, helper)), AnalyzeOptions(jobs=1))
        native = [f for f in report.findings if f.path == "pkg/csrc/cc.cu" and f.rule.startswith("OPS")]
        assert native and all(f.reach == "runs" for f in native), [(f.rule, f.reach) for f in native]


def test_caught_calls_needs_a_handler_that_catches_an_import_error_and_carries_on():
    from ascend_feasibility.analyzer.context.import_fallbacks import caught_calls
    from ascend_feasibility.analyzer.reading import parsing

    def read(source: str) -> dict[str, int]:
        root = parsing.parse("python", source.encode())
        calls = parsing.captures(parsing.query("python", "(call function: (identifier) @c)"), root)["c"]
        return caught_calls(calls, {"helper"})

    assert read("def f():\n    try:\n        helper()\n    except Exception:\n        pass\n") == {"helper": 4}
    assert read("def f():\n    try:\n        helper()\n    except:\n        log('x')\n") == {"helper": 4}
    # an outer try catches what the inner one lets through
    assert read("def f():\n    try:\n        try:\n            helper()\n        except ValueError:\n            pass\n"
                "    except ImportError:\n        pass\n") == {"helper": 7}
    assert read("def f():\n    try:\n        helper()\n    except ValueError:\n        pass\n") == {}
    assert read("def f():\n    try:\n        helper()\n    except Exception:\n        sys.exit(1)\n") == {}
    assert read("def f():\n    try:\n        helper()\n    except Exception:\n        raise\n") == {}
    assert read("def f():\n    try:\n        helper()\n    except Exception:\n        pass\n    helper()\n") == {}
    assert read("def f():\n    try:\n        pass\n    except Exception:\n        helper()\n") == {}  # a handler is no body
    # the failure escapes the try as a mark that later code reads: that code decides
    assert read("def f():\n    try:\n        ext = helper()\n    except Exception:\n        warn('x')\n        ext = None\n") == {}
    assert read("def f():\n    try:\n        helper()\n    except ImportError:\n        ok = False\n") == {}


# An extension every use of which sits in the CUDA arm of a device test whose other arm runs PyTorch (round 11:
# stylegan3's lazily built plugins, GroundingDINO's _C behind `torch.cuda.is_available() and value.is_cuda`).
LAZY = """import os
import torch
from torch.utils.cpp_extension import load

_plugin = None


def _init():
    global _plugin
    if _plugin is None:
        _plugin = load(name='fused_plugin', sources=['fused.cpp', 'fused.cu'])
    return True


def fused(x, impl='cuda'):
    if impl == 'cuda' and x.device.type == 'cuda' and _init():
        return _fused_cuda().apply(x)
    return _fused_ref(x)


def _fused_ref(x):
    return torch.nn.functional.leaky_relu(x, 0.2)


def _fused_cuda():
    class FusedCuda(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return _plugin.fused(x)
    return FusedCuda
"""


def _lazy_tree(ops: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/ops/__init__.py": "", "pkg/ops/fused.py": ops,
            "pkg/model.py": "from pkg.ops.fused import fused\n\n\ndef run(x):\n    return fused(x)\n",
            "pkg/ops/fused.cpp": BINDING.replace("forward", "fused").replace("&lightconv_fused", "&fused_cuda"),
            "pkg/ops/fused.cu": KERNEL.replace("lightconv_forward_kernel", "fused_kernel"),
            "pkg/ops/other.cu": KERNEL.replace("lightconv_forward_kernel", "other_kernel")}


def test_an_extension_only_a_device_type_arm_reaches_is_optional_with_one_finding_at_the_test(tmp_path):
    report = analyze(write_tree(tmp_path, _lazy_tree(LAZY)), AnalyzeOptions(jobs=1))
    native = [f for f in report.findings if f.path in {"pkg/ops/fused.cu", "pkg/ops/fused.cpp"} and f.rule.startswith("OPS")]
    assert {f.rule for f in native} >= {"OPS002", "OPS010"}
    assert all(f.reach == "optional" for f in native), [(f.rule, f.path, f.reach) for f in native]
    reason = native[0].reach_reason
    assert "CUDA arm of `impl == 'cuda' and x.device.type == 'cuda' and _init()` (pkg/ops/fused.py:16)" in reason
    assert "_fused_ref()" in reason and "only for speed" in reason and "stays false for NPU tensors" in reason
    # a kernel beside it that the loader does not name is not this extension's (nothing builds it: unbuilt.py)
    assert all("CUDA arm" not in (f.reach_reason or "") for f in report.findings if f.path == "pkg/ops/other.cu")
    # and the lazy build (OPS021 at the load) goes with the definition only the arm reaches
    assert [f.reach for f in report.findings if f.rule == "OPS021"] == ["optional"]
    gate = [f for f in report.findings if f.rule in {"OPS090", "OPS091"}]
    assert [(f.rule, f.path, f.line, f.severity, f.reach) for f in gate] == [("OPS090", "pkg/ops/fused.py", 16, "low", "runs")]
    assert "_fused_ref()" in gate[0].replacement.en


def test_an_extension_some_path_reaches_without_a_pytorch_arm_stays_required(tmp_path):
    raising = LAZY.replace("    return _fused_ref(x)\n\n\ndef _fused_ref", "    raise RuntimeError('needs CUDA')\n\n\ndef _fused_ref")
    elsewhere = LAZY + "\n\ndef fused_anywhere(x):\n    _init()\n    return _plugin.fused(x)\n"
    imported = LAZY.replace("def _fused_cuda", "def fused_cuda").replace("_fused_cuda()", "fused_cuda()")
    for ops, extra in ((raising, {}), (elsewhere, {}),
                       (imported, {"pkg/direct.py": "from pkg.ops.fused import fused_cuda\n\n\ndef run(x):\n"
                                                    "    return fused_cuda().apply(x)\n"})):
        report = analyze(write_tree(tmp_path, {**_lazy_tree(ops), **extra}), AnalyzeOptions(jobs=1))
        native = [f for f in report.findings if f.path == "pkg/ops/fused.cu" and f.rule.startswith("OPS")]
        assert native and all(f.reach == "runs" for f in native), [(f.rule, f.reach) for f in native]
        assert not [f for f in report.findings if f.rule in {"OPS090", "OPS091"}]
        for path in extra:
            (tmp_path / path).unlink()


# Latte's copy of StyleGAN's plugins (round 15, B rows 3, 6, 9, 28, 34, 47; A rows 21, 46): the loader is given its
# sources through a name (`sources = [...]`, then `[os.path.join(os.path.dirname(__file__), s) for s in sources]`),
# inside a try that warns and falls back, and the Python sits in a top-level tools/ folder (role example) while its
# .cu/.cpp keep role product by their path.
NAMED = LAZY.replace("import os\n", "import os\nimport warnings\n").replace(
    "        _plugin = load(name='fused_plugin', sources=['fused.cpp', 'fused.cu'])\n    return True\n",
    "        sources = ['fused.cpp', 'fused.cu']\n"
    "        sources = [os.path.join(os.path.dirname(__file__), s) for s in sources]\n"
    "        try:\n            _plugin = load(name='fused_plugin', sources=sources)\n"
    "        except Exception:\n            warnings.warn('Falling back to the slow reference implementation')\n"
    "    return _plugin is not None\n")


def _tool_tree(ops: str) -> dict[str, str]:
    tree = {path.replace("pkg/", "tools/torch_utils/"): text for path, text in _lazy_tree(ops).items()}
    tree["tools/torch_utils/model.py"] = tree["tools/torch_utils/model.py"].replace("pkg.ops", "tools.torch_utils.ops")
    return {"tools/__init__.py": "", **tree}


def test_a_lazy_build_given_its_sources_through_a_name_in_a_tool_folder_is_optional(tmp_path):
    assert "sources=sources" in NAMED and "_plugin is not None" in NAMED
    report = analyze(write_tree(tmp_path, _tool_tree(NAMED)), AnalyzeOptions(jobs=1))
    native = [f for f in report.findings if f.path.endswith(("ops/fused.cu", "ops/fused.cpp")) and f.rule.startswith("OPS")]
    assert {f.rule for f in native} >= {"OPS002", "OPS010"} and {f.role for f in native} == {"product"}
    assert all(f.reach == "optional" and "CUDA arm of `impl == 'cuda'" in f.reach_reason for f in native), \
        [(f.rule, f.path, f.reach) for f in native]
    assert [(f.rule, f.line) for f in report.findings if f.rule in {"OPS090", "OPS091"}] == [("OPS090", 22)]


def test_a_lazy_build_given_its_sources_through_a_name_stays_required_where_a_path_skips_the_test(tmp_path):
    elsewhere = NAMED + "\n\ndef fused_anywhere(x):\n    _init()\n    return _plugin.fused(x)\n"
    report = analyze(write_tree(tmp_path, _tool_tree(elsewhere)), AnalyzeOptions(jobs=1))
    native = [f for f in report.findings if f.path.endswith("ops/fused.cu") and f.rule.startswith("OPS")]
    assert native and all(f.reach == "runs" for f in native), [(f.rule, f.reach) for f in native]
    assert not [f for f in report.findings if f.rule in {"OPS090", "OPS091"}]


ATTN = """import warnings
import torch
from torch.autograd import Function

try:
    from pkg import _C
except:
    warnings.warn("Failed to load custom C++ ops. Running on CPU mode Only!")


class MSDeformAttnFunction(Function):
    @staticmethod
    def forward(ctx, value, locations):
        return _C.ms_deform_attn_forward(value, locations)


def ms_deform_attn_pytorch(value, locations):
    return torch.nn.functional.grid_sample(value, locations)


class MSDeformAttn(torch.nn.Module):
    def forward(self, value, locations):
        if torch.cuda.is_available() and value.is_cuda:
            output = MSDeformAttnFunction.apply(value, locations)
        else:
            output = ms_deform_attn_pytorch(value, locations)
        return output


USE_GPU = torch.cuda.is_available()
"""
GLOB_SETUP = """import glob
import os
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension


def get_extensions():
    extensions_dir = os.path.join(os.path.dirname(__file__), "pkg", "csrc")
    sources = glob.glob(os.path.join(extensions_dir, "**", "*.cpp"))
    extension = CppExtension
    if CUDA_HOME is not None and torch.cuda.is_available():
        extension = CUDAExtension
        sources += glob.glob(os.path.join(extensions_dir, "**", "*.cu"))
    else:
        return None
    return [extension("pkg._C", sources)]


setup(name="pkg", packages=["pkg"], ext_modules=get_extensions())
"""


def _attn_tree(attn: str) -> dict[str, str]:
    return {"setup.py": GLOB_SETUP, "pkg/__init__.py": "", "pkg/attn.py": attn,
            "pkg/model.py": "from pkg.attn import MSDeformAttn\n\n\ndef build():\n    return MSDeformAttn()\n",
            "pkg/csrc/vision.cpp": ("#include <torch/extension.h>\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                                    "  m.def(\"ms_deform_attn_forward\", &ms_deform_attn_forward_cuda);\n}\n"),
            "pkg/csrc/attn/attn_cuda.cu": KERNEL.replace("lightconv_forward_kernel", "ms_deformable_im2col_kernel")}


def test_an_is_cuda_gate_before_an_absent_extension_is_the_finding_to_act_on(tmp_path):
    report = analyze(write_tree(tmp_path, _attn_tree(ATTN)), AnalyzeOptions(jobs=1))
    own = [f for f in report.findings if f.rule.startswith("OPS") and f.rule not in {"OPS013", "OPS090", "OPS091"}
           and (f.path.startswith("pkg/csrc/") or f.path in {"pkg/attn.py", "setup.py"})]
    assert {f.rule for f in own} >= {"OPS001", "OPS010", "OPS040", "OPS062"}, [(f.rule, f.path) for f in own]
    assert all(f.reach == "optional" for f in own), [(f.rule, f.path, f.line, f.reach) for f in own]
    reason = own[0].reach_reason
    assert "torch.cuda.is_available() and value.is_cuda` (pkg/attn.py:23)" in reason
    assert "ms_deform_attn_pytorch()" in reason and "under transfer_to_npu this test is true" in reason
    gate = [f for f in report.findings if f.rule in {"OPS090", "OPS091"}]
    assert [(f.rule, f.path, f.line, f.severity, f.reach) for f in gate] == [("OPS091", "pkg/attn.py", 23, "medium", "runs")]
    assert "x.device.type == \"cuda\"" in gate[0].replacement.en
    # DEV104/DEV006 would call this very test `auto` (transfer_to_npu aliases both names): OPS091 speaks there alone,
    # while the same check elsewhere in the file keeps its own finding
    device = [(f.rule, f.line) for f in report.findings if f.path == "pkg/attn.py" and f.rule in {"DEV104", "DEV006"}]
    assert device == [("DEV104", 30)], device
    # the device type instead: false for NPU tensors under transfer_to_npu too, so only the low note remains
    fixed = ATTN.replace("torch.cuda.is_available() and value.is_cuda", "value.device.type == 'cuda'")
    report = analyze(write_tree(tmp_path, _attn_tree(fixed)), AnalyzeOptions(jobs=1))
    gate = [f for f in report.findings if f.rule in {"OPS090", "OPS091"}]
    assert [(f.rule, f.severity) for f in gate] == [("OPS090", "low")]


def test_an_autograd_function_applied_outside_the_arm_keeps_the_extension_required(tmp_path):
    direct = "from pkg.attn import MSDeformAttnFunction\n\n\ndef run(value, locations):\n    return MSDeformAttnFunction.apply(value, locations)\n"
    report = analyze(write_tree(tmp_path, {**_attn_tree(ATTN), "pkg/direct.py": direct}), AnalyzeOptions(jobs=1))
    kernels = [f for f in report.findings if f.path == "pkg/csrc/attn/attn_cuda.cu"]
    assert kernels and all(f.reach == "runs" for f in kernels)
    assert not [f for f in report.findings if f.rule in {"OPS090", "OPS091"}]


def test_gated_handles_reads_the_arm_and_the_test():
    from ascend_feasibility.analyzer.context.cuda_arms import gated_handles
    from ascend_feasibility.analyzer.reading import parsing

    def read(source: str):
        return gated_handles(parsing.parse("python", source.encode()), source)

    (handle,) = read(LAZY)
    assert handle[:4] == ("_plugin", "", ("fused.cpp", "fused.cu"), ("fused",))
    assert handle[4] == (("_fused_cuda", 25, 30), ("_init", 8, 12)) and handle[5:] == (
        16, "impl == 'cuda' and x.device.type == 'cuda' and _init()", "_fused_ref", False)
    (handle,) = read(NAMED)  # the sources read back through the names the call is given
    assert handle[:4] == ("_plugin", "", ("fused.cpp", "fused.cu"), ("fused",))
    # a name assigned only after the call, or from a call, names no source
    assert not read(NAMED.replace("        sources = ['fused.cpp', 'fused.cu']\n", "").replace(
        "    return _plugin is not None\n", "    sources = ['fused.cpp', 'fused.cu']\n    return _plugin is not None\n"))
    assert not read(NAMED.replace("sources = ['fused.cpp', 'fused.cu']", "sources = find_sources()"))
    # a module-level list of sources the function passes on
    module_level = LAZY.replace("_plugin = None\n", "_plugin = None\n_SOURCES = ['fused.cpp', 'fused.cu']\n").replace(
        "sources=['fused.cpp', 'fused.cu']", "sources=_SOURCES")
    (handle,) = read(module_level)
    assert handle[2] == ("fused.cpp", "fused.cu")
    # ... unless the function assigns that name itself, from something else
    assert not read(module_level.replace("        _plugin = load(", "        _SOURCES = find_sources()\n        _plugin = load("))
    (handle,) = read(ATTN)
    assert handle[1] == "pkg._C" and handle[6:] == ("torch.cuda.is_available() and value.is_cuda", "ms_deform_attn_pytorch", True)
    # `torch._C` and a method's `self._init()` are other names than the module's own `_C` and `_init`
    (handle,) = read(ATTN.replace("    def forward(self, value, locations):\n",
                                  "    def forward(self, value, locations):\n        torch._C._log_api_usage_once('x')\n"))
    assert handle[1] == "pkg._C"
    assert read(LAZY + "\n\nclass Op:\n    def _init(self):\n        pass\n\n    def run(self):\n        self._init()\n")
    # an `or`, a negated test, an elif chain, and a module-level import that is not caught: no arm to trust
    assert not read(LAZY.replace("x.device.type == 'cuda' and _init()", "(x.device.type == 'cuda' or x.is_cpu) and _init()"))
    assert not read(ATTN.replace("if torch.cuda.is_available() and value.is_cuda:", "if not value.is_cuda:"))
    assert not read(ATTN.replace("        else:\n", "        elif value.is_cpu:\n"))
    assert not read(ATTN.replace("try:\n    from pkg import _C\nexcept:\n    warnings.warn(\"Failed to load custom C++ ops. Running on CPU mode Only!\")",
                                 "from pkg import _C"))


# OLMo's vendored AutoGPTQ (scout 12 A class 1, B W1): setup.py builds the extension only `if BUILD_CUDA_EXT:`,
# qlinear_cuda.py catches its ImportError (logging, then a flag its forward's PyTorch arm reads), and
# autogptq_post_init imports it in a function behind `if model_uses_exllama:`.
SWITCH_SETUP = ("import os\nfrom setuptools import setup\n\nBUILD_CUDA_EXT = int(os.environ.get('BUILD_CUDA_EXT', '1')) == 1\n"
                "extensions = []\nif BUILD_CUDA_EXT:\n    from torch.utils import cpp_extension\n\n    extensions = [\n"
                "        cpp_extension.CUDAExtension('quant_cuda', ['csrc/quant.cpp', 'csrc/quant_kernel.cu']),\n    ]\n"
                "setup(name='pkg', packages=['pkg'], ext_modules=extensions)\n")
CAUGHT = ("import logging\nimport torch\n\nlogger = logging.getLogger(__name__)\ntry:\n    import quant_cuda\n\n"
          "    _available = True\nexcept ImportError:\n    logger.warning('CUDA extension not installed.')\n"
          "    quant_cuda = None\n    _available = False\n\n\nclass QuantLinear(torch.nn.Module):\n"
          "    def forward(self, x):\n        if _available:\n            return quant_cuda.matmul(x)\n        return x @ self.weight\n")
POST = ("def post_init(model):\n    uses_kernels = False\n    for module in model.modules():\n"
        "        if getattr(module, 'QUANT_TYPE', '') == 'gptq':\n            uses_kernels = True\n"
        "    if uses_kernels:\n        from quant_cuda import prepare_buffers\n\n        prepare_buffers()\n    return model\n")


def _switch_tree(**extra: str) -> dict[str, str]:
    return {"setup.py": SWITCH_SETUP, "pkg/__init__.py": "from pkg.qlinear import QuantLinear\nfrom pkg.post import post_init\n",
            "pkg/qlinear.py": CAUGHT, "pkg/post.py": POST,
            "csrc/quant.cpp": BINDING.replace("&lightconv_forward", "&quant_matmul"),
            "csrc/quant_kernel.cu": KERNEL.replace("lightconv_forward_kernel", "quant_matmul_kernel"), **extra}


def test_an_extension_built_behind_a_switch_and_imported_only_where_caught_is_optional(tmp_path):
    report = analyze(write_tree(tmp_path, _switch_tree()), AnalyzeOptions(jobs=1))
    native = [f for f in report.findings if f.path.startswith("csrc/") and f.rule.startswith("OPS")]
    assert {f.rule for f in native} >= {"OPS001"}
    assert all(f.reach == "optional" for f in native), [(f.rule, f.path, f.reach) for f in native]
    assert "quant_cuda is built only behind a switch (setup.py:10, line 6: if BUILD_CUDA_EXT:)" in native[0].reach_reason
    assert "pkg/qlinear.py:6 caught" in native[0].reach_reason
    # the import in a function behind a flag: optional, and it does not stop its module loading
    local = next(f for f in report.findings if f.rule == "OPS013" and f.path == "pkg/post.py")
    assert local.reach == "optional" and "fails to load" not in local.message.en and "each time the function" in local.message.en
    # one finding at the build says what to do; the build's own finding goes
    build = [(f.rule, f.line, f.severity, f.reach) for f in report.findings if f.path == "setup.py" and f.rule.startswith("OPS")]
    assert build == [("OPS092", 10, "low", "runs")], build


def test_an_extension_some_module_imports_plainly_stays_required_behind_its_switch(tmp_path):
    plain = "import quant_cuda\n\n\ndef run(x):\n    return quant_cuda.matmul(x)\n"
    report = analyze(write_tree(tmp_path, _switch_tree(**{"pkg/direct.py": plain})), AnalyzeOptions(jobs=1))
    kernels = [f for f in report.findings if f.path == "csrc/quant_kernel.cu"]
    assert kernels and all(f.reach == "runs" for f in kernels)
    assert not [f for f in report.findings if f.rule == "OPS092"]
    # and a flagged import in a function alone (nothing catches the absence anywhere) proves nothing either
    report = analyze(write_tree(tmp_path, {**_switch_tree(**{"pkg/direct.py": ""}),
                                           "pkg/qlinear.py": "import torch\n"}), AnalyzeOptions(jobs=1))
    assert all(f.reach == "runs" for f in report.findings if f.path == "csrc/quant_kernel.cu")


def test_a_kernel_compiled_from_two_copies_is_counted_once_in_the_estimate(tmp_path):
    """AutoGPTQ's cuda_64 and cuda_256 extensions compile the same kernels from two files that differ in spacing,
    comments and the constants they read (scout 12 A row 5): one port. A kernel of the same name but other code is not."""
    kernel = ("__global__ void vec_quant_kernel(const float* in, float* out, int n) {\n  __shared__ float t[BLOCKWIDTH];\n"
              "  int i = blockIdx.x * BLOCKWIDTH + threadIdx.x;\n  if (i < n) { t[threadIdx.x] = in[i]; out[i] = t[threadIdx.x]; }\n}\n")
    copy = kernel.replace("  int i", "  // the same index\n  int i").replace("(i < n) {", "(i < n)  {")
    other = kernel.replace("out[i] = t[threadIdx.x];", "out[i] = 2 * t[threadIdx.x];")
    files = {"pkg/__init__.py": "", "csrc/a/kernel.cu": "const int BLOCKWIDTH = 64;\n" + kernel,
             "csrc/b/kernel.cu": "const int BLOCKWIDTH = 256;\n\n" + copy}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    rows = {row.path: row for row in report.custom_ops}
    assert rows["csrc/b/kernel.cu"].same_code_as == "csrc/a/kernel.cu:2" and rows["csrc/a/kernel.cu"].same_code_as is None
    item = next(i for i in report.effort.items if i.rule in {"OPS001", "OPS002"})
    assert item.patterns == 2 and "the same code as csrc/a/kernel.cu:2, counted once" in item.arithmetic.en
    files["csrc/b/kernel.cu"] = other
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    assert all(row.same_code_as is None for row in report.custom_ops)
    assert "counted once" not in next(i for i in report.effort.items if i.rule in {"OPS001", "OPS002"}).arithmetic.en


MSDA_SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
              "setup(name='pkg', ext_modules=[CUDAExtension('MultiScaleDeformableAttention', "
              "['pkg/src/vision.cpp', 'pkg/src/attn_cuda.cu'])], cmdclass={'build_ext': BuildExtension})\n")
MSDA_FUNC = """import torch

if torch.cuda.is_available():
    try:
        import MultiScaleDeformableAttention as MSDA
    except ModuleNotFoundError:
        raise ModuleNotFoundError("build the op: sh make.sh")
else:
    MultiScaleDeformableAttention = None


def ms_deform_attn_forward(value):
    return MSDA.ms_deform_attn_forward(value)
"""


def _msda_tree(func: str) -> dict[str, str]:
    return {"setup.py": MSDA_SETUP, "pkg/__init__.py": "from pkg.func import ms_deform_attn_forward\n", "pkg/func.py": func,
            "pkg/src/vision.cpp": "#include <torch/extension.h>\n",
            "pkg/src/attn_cuda.cu": KERNEL.replace("lightconv_forward_kernel", "ms_deformable_im2col_kernel"),
            "train.py": "import pkg\n\nif __name__ == '__main__':\n    pkg.ms_deform_attn_forward(None)\n"}


def test_an_extension_import_behind_a_test_transfer_to_npu_makes_true_is_an_item_at_the_test(tmp_path):
    """OneFormer ms_deform_attn_func.py:21 (round 34 V2 class 4): under transfer_to_npu `torch.cuda.is_available()` is
    True on Ascend, the import runs and re-raises, and the package does not load. One finding at the test, medium, with
    the file's reach; DEV104's `auto` goes on that line."""
    report = analyze(write_tree(tmp_path, _msda_tree(MSDA_FUNC)), AnalyzeOptions(jobs=1))
    gate = [(f.rule, f.path, f.line, f.severity, f.reach) for f in report.findings if f.rule == "OPS094"]
    assert gate == [("OPS094", "pkg/func.py", 3, "medium", "runs")], gate
    assert not [f for f in report.findings if f.path == "pkg/func.py" and f.line == 3 and f.rule in {"DEV104", "DEV006"}]
    # an import whose failure is caught and falls back loads under the shim too: nothing to change at the test
    caught = MSDA_FUNC.replace('raise ModuleNotFoundError("build the op: sh make.sh")', "MSDA = None")
    report = analyze(write_tree(tmp_path, _msda_tree(caught)), AnalyzeOptions(jobs=1))
    assert not [f for f in report.findings if f.rule == "OPS094"]
