"""TensorRT plugins: native code that runs only inside a TensorRT engine, never on the PyTorch path.

InternImage's tensorrt/modulated_deform_conv_v3/ holds mmdeploy's DCNv3 plugin: trt_deform_conv_v3.hpp declares
`class TRTDCNv3 : public TRTPluginBase` with the `nvinfer1::IPluginV2DynamicExt` methods, and the kernel file beside it
(trt_deform_conv_v3_kernel.cu) launches the CUDA kernels the plugin's `enqueue` calls. TensorRT has no Ascend build:
on Ascend a model is deployed through ATC/OM, which takes the exported graph (the ONNX node the PyTorch op's
`symbolic` emits), so the plugin is replaced, not ported, and its kernels are no work of the port.

A native file that writes one of the conventions' TensorRT plugin words (the plugin interfaces `IPluginV2*`,
mmdeploy's `TRTPluginBase`, the `NvInfer*.h` headers) marks its folder as the plugin's; that file and the native files
beside it are `other-backend`. Left out, so kept as they are: a folder that also binds a torch extension (PYBIND11_MODULE,
TORCH_LIBRARY), and any file a torch extension's build compiles (its kernels run on the PyTorch path too).

The CMake file that builds such a deployment is `other-backend` too: one whose targets link a TensorRT library or find
the TensorRT package (YOLOP's toolkits/deploy/CMakeLists.txt links `nvinfer` beside its yololayer.cu plugin, and its
`find_package(CUDA ...)` is no torch_npu build to add), or that lies in a plugin's folder and names its CUDA sources.
Kept: a CMake file that also builds against libtorch, or whose folder binds a torch extension."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.written_names import writes_word
from ascend_feasibility.domains.custom_ops.binding_reach import resolved_sources
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ProjectRun


def tensorrt_plugins(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """path → ("other-backend", why) for the native files of TensorRT plugin folders and the CMake files of TensorRT
    builds."""
    words = load_context_conventions().backends.tensorrt_plugin_words
    marks: dict[str, tuple[str, str]] = {}  # plugin folder → (the file that marks it, the word)
    for native in facts.native_words:
        word = next((w for w in words if writes_word(native.words, w)), None)
        if word is not None:
            marks.setdefault(str(PurePosixPath(native.path).parent), (native.path, word))
    bound = {str(PurePosixPath(b.path).parent) for b in facts.bindings}
    result = _tensorrt_builds(facts, bound, marks)
    if not marks:
        return result
    paths = {t.path for t in (*run.modules, *facts.native_words)}
    compiled = set().union(*(resolved_sources(e, paths) for e in facts.extensions)) if facts.extensions else set()
    for native in facts.native_words:
        folder = str(PurePosixPath(native.path).parent)
        if folder not in marks or folder in bound or native.path in compiled:
            continue
        marker, word = marks[folder]
        result[native.path] = ("other-backend", f"{native.path}: a TensorRT plugin's code ({marker} writes {word}): it "
                               "runs only inside a TensorRT engine, which has no Ascend build; an Ascend deployment "
                               "goes through ATC/OM from the exported graph instead")
    return result


def _tensorrt_builds(facts: CustomOpFacts, bound: set[str], marks: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """CMake path → ("other-backend", why) for the CMake files that build TensorRT code and not libtorch: their
    targets link TensorRT, or they lie in a TensorRT plugin's folder (`marks`: folder → (marking file, word))."""
    conventions = load_context_conventions().backends
    tensorrt, torch = set(conventions.tensorrt_link_names), set(conventions.torch_link_names)
    linked: dict[str, list[tuple[int, str]]] = {}
    for path, line, name in facts.cmake_links:
        linked.setdefault(path, []).append((line, name.removeprefix("${").removesuffix("}")))
    for path, *_ in facts.cmake_sources:
        linked.setdefault(path, [])
    result = {}
    for path, names in linked.items():
        folder = str(PurePosixPath(path).parent)
        if any(name in torch for _, name in names) or folder in bound:
            continue
        found = next(((line, name) for line, name in sorted(names) if name in tensorrt), None)
        if found is not None:
            built = f"{path}:{found[0]} links {found[1]}"
        elif folder in marks:
            built = f"{path} builds the TensorRT plugin folder ({marks[folder][0]} writes {marks[folder][1]})"
        else:
            continue
        result[path] = ("other-backend", f"{built}: the build of a TensorRT deployment, which has no Ascend build; an "
                        "Ascend deployment goes through ATC/OM from the exported graph instead (an .om model run by "
                        "AscendCL or MindIE), not a torch_npu build")
    return result
