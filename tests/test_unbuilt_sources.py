"""Native sources no build of the project names are not compiled: their findings are optional
(analyzer/context/unbuilt.py). A source named by a setup.py, a load() call, a shell nvcc line, a folder string or a glob,
or sitting under a CMakeLists.txt/Makefile, keeps `runs`; so does every source of a project whose builds name none."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.unbuilt import WHY
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import reported_at, write_tree

KERNEL = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
         "setup(name='qoptim', ext_modules=[CUDAExtension('qoptim', sources=['fp8_adamw_kernel.cu'])])\n")


def _reach_by_path(root) -> dict[str, set[tuple[str, str | None]]]:
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in analyze(root, AnalyzeOptions(jobs=1)).findings:
        for path in reported_at(f):  # byte-identical copies fold into one finding
            found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def test_a_source_no_build_names_is_not_compiled(tmp_path):
    write_tree(tmp_path, {
        "kernels/setup.py": SETUP,
        "kernels/fp8_adamw_kernel.cu": KERNEL,
        "kernels/csrc_expand/nvcc_qoptim.cu": KERNEL,  # beside the extension, named by nothing
        "ops/loader.py": "from torch.utils.cpp_extension import load\nm = load('m', sources=['ops/csrc/fused.cu'])\n",
        "ops/csrc/fused.cu": KERNEL,
        "tools/build.sh": "nvcc standalone.cu -o standalone\n",
        "tools/standalone.cu": KERNEL,
    })
    reach = _reach_by_path(tmp_path)
    assert reach["kernels/csrc_expand/nvcc_qoptim.cu"] == {("optional", WHY)}
    for built in ("kernels/fp8_adamw_kernel.cu", "ops/csrc/fused.cu", "tools/standalone.cu"):
        assert {r for r, _ in reach[built]} == {"runs"}, built
    assert phrase("zh", WHY) != WHY


def test_globs_folders_cmake_and_unnamed_builds_keep_their_sources(tmp_path):
    write_tree(tmp_path, {
        "kernels/setup.py": SETUP,
        "kernels/fp8_adamw_kernel.cu": KERNEL,
        "glob/setup.py": "import glob\nsources = glob.glob('glob/csrc/*.cu')\n",
        "glob/csrc/any_name.cu": KERNEL,
        "cm/CMakeLists.txt": "file(GLOB SRC *.cu)\nadd_library(x ${SRC})\n",
        "cm/sub/globbed.cu": KERNEL,
    })
    reach = _reach_by_path(tmp_path)
    for built in ("glob/csrc/any_name.cu", "cm/sub/globbed.cu"):
        assert {r for r, _ in reach[built]} == {"runs"}, built
    write_tree(tmp_path / "other", {"csrc/unlisted.cu": KERNEL, "setup.py": "import glob\nglob.glob('**/*.cu')\n"})
    assert {r for r, _ in _reach_by_path(tmp_path / "other")["csrc/unlisted.cu"]} == {"runs"}  # names no source


JOINED_SETUP = (
    "import glob, os\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
    "def get_extensions():\n"
    "    this_dir = os.path.dirname(os.path.abspath(__file__))\n"
    "    extensions_dir = os.path.join(this_dir, 'pkg', 'csrc')\n"
    "    main = [os.path.join(extensions_dir, 'ball_query.cu')]\n"
    "    source_cuda = glob.glob(os.path.join(extensions_dir, 'SUB', '*.cu'), recursive=True)\n"
    "    return [CUDAExtension('pkg._C', main + source_cuda)]\n"
)


def test_a_glob_joined_from_parts_and_names_keeps_the_sources_below_it(tmp_path):
    """pytorch3d's setup.py: `glob(os.path.join(extensions_dir, "**", "*.cu"), recursive=True)` with
    `extensions_dir = os.path.join(this_dir, "pytorch3d", "csrc")`: no single string names the folder."""
    write_tree(tmp_path, {
        "setup.py": JOINED_SETUP.replace("SUB", "**"),
        "pkg/csrc/ball_query.cu": KERNEL,
        "pkg/csrc/knn/knn.cu": KERNEL,  # its stem is written nowhere: only the joined glob takes it
        "other/stray_kernel.cu": KERNEL,
    })
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["pkg/csrc/knn/knn.cu"]} == {"runs"}
    assert reach["other/stray_kernel.cu"] == {("optional", WHY)}  # outside the joined folder: still not compiled


def test_a_glob_with_an_unread_part_walks_the_folder_before_it(tmp_path):
    """`glob(join(extensions_dir, variant(), "*.cu"))` globs somewhere below pkg/csrc: unknown there is not absent, and
    no path is made up from the unread part, so a kernel outside pkg/csrc is still not compiled."""
    write_tree(tmp_path, {
        "setup.py": JOINED_SETUP.replace("'SUB'", "variant()"),
        "pkg/csrc/ball_query.cu": KERNEL,
        "pkg/csrc/knn/knn.cu": KERNEL,
        "other/stray_kernel.cu": KERNEL,
    })
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["pkg/csrc/knn/knn.cu"]} == {"runs"}
    assert reach["other/stray_kernel.cu"] == {("optional", WHY)}


# setup() that ships its kernels as package data and builds the one extension whose sources it lists; the .cu files
# named only as data are installed, never compiled (round 25 A2 row 79: FunASR's setup.py package_data)
SHIPPING_SETUP = (
    "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
    "setup(name='pkg', ext_modules=[CUDAExtension('pkg._C', sources=['pkg/csrc/built.cu'])],\n"
    "      package_data={'pkg': ['shipped/*.cu', 'pkg/shipped/named_kernel.cu', 'pkg/csrc/built.cu']},\n"
    "      data_files=[('share/pkg', ['pkg/data/data_kernel.cu'])])\n"
)


def test_a_source_shipped_only_as_package_data_is_not_compiled(tmp_path):
    write_tree(tmp_path, {
        "setup.py": SHIPPING_SETUP,
        "pkg/__init__.py": "",
        "pkg/csrc/built.cu": KERNEL,  # package data too, and listed by a live CUDAExtension: built
        "pkg/shipped/globbed.cu": KERNEL,  # only a package_data glob takes it
        "pkg/shipped/named_kernel.cu": KERNEL,  # package_data names it by path
        "pkg/data/data_kernel.cu": KERNEL,  # data_files names it
        "pkg/manifest_only/manifest_kernel.cu": KERNEL,  # MANIFEST.in, which builds nothing, names it
        "MANIFEST.in": "recursive-include pkg *.cu\ninclude pkg/manifest_only/manifest_kernel.cu\n",
    })
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["pkg/csrc/built.cu"]} == {"runs"}
    for shipped in ("pkg/shipped/globbed.cu", "pkg/shipped/named_kernel.cu", "pkg/data/data_kernel.cu",
                    "pkg/manifest_only/manifest_kernel.cu"):
        assert reach[shipped] == {("optional", WHY)}, shipped


def test_package_data_bound_to_a_name_or_key_is_shipping_and_other_lists_build(tmp_path):
    setup = ("from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "package_data = {'pkg': ['pkg/a/bound_kernel.cu']}\n"
             "kwargs = {'data_files': [('x', ['pkg/b/keyed_kernel.cu'])]}\n"
             "sources = ['pkg/csrc/built.cu', 'pkg/c/listed_kernel.cu']\n"
             "setup(name='pkg', package_data=package_data, ext_modules=[CUDAExtension('pkg._C', sources=sources)],"
             " **kwargs)\n")
    write_tree(tmp_path, {"setup.py": setup, "pkg/__init__.py": "", "pkg/csrc/built.cu": KERNEL,
                          "pkg/a/bound_kernel.cu": KERNEL, "pkg/b/keyed_kernel.cu": KERNEL,
                          "pkg/c/listed_kernel.cu": KERNEL})
    reach = _reach_by_path(tmp_path)
    for built in ("pkg/csrc/built.cu", "pkg/c/listed_kernel.cu"):
        assert {r for r, _ in reach[built]} == {"runs"}, built
    for shipped in ("pkg/a/bound_kernel.cu", "pkg/b/keyed_kernel.cu"):
        assert reach[shipped] == {("optional", WHY)}, shipped


# Pointcept's libs/pointops/setup.py: no source listed, every .cpp/.cu under "src" collected by os.walk (round 39 V-6)
WALKING_SETUP = (
    "import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n\n"
    "src = FOLDER\n"
    "sources = [os.path.join(root, file) for root, dirs, files in os.walk(src) for file in files\n"
    "           if file.endswith('.cpp') or file.endswith('.cu')]\n"
    "setup(name='pointops', ext_modules=[CUDAExtension(name='pointops._C', sources=sources)],\n"
    "      cmdclass={'build_ext': BuildExtension})\n"
)


def _walking_tree(tmp_path, folder: str, setup: str = WALKING_SETUP) -> dict[str, set[tuple[str, str | None]]]:
    write_tree(tmp_path, {
        "kernels/setup.py": SETUP,  # a build naming its sources: the project is judged
        "kernels/fp8_adamw_kernel.cu": KERNEL,
        "libs/pointops/setup.py": setup.replace("FOLDER", folder),
        "libs/pointops/src/knn_query/knn_query_cuda_kernel.cu": KERNEL,  # its stem is written nowhere
        "other/stray_kernel.cu": KERNEL,
    })
    return _reach_by_path(tmp_path)


def test_a_folder_a_setup_walks_is_compiled(tmp_path):
    reach = _walking_tree(tmp_path, "'src'")
    assert {r for r, _ in reach["libs/pointops/src/knn_query/knn_query_cuda_kernel.cu"]} == {"runs"}
    assert reach["other/stray_kernel.cu"] == {("optional", WHY)}  # outside the walked folder: still not compiled


def test_a_glob_or_a_path_walk_of_a_folder_is_compiled(tmp_path):
    setup = WALKING_SETUP.replace("[os.path.join(root, file) for root, dirs, files in os.walk(src) for file in files\n"
                                  "           if file.endswith('.cpp') or file.endswith('.cu')]",
                                  "[str(p) for p in Path(src).rglob('*.cu')]").replace("import os\n",
                                                                                      "from pathlib import Path\n")
    reach = _walking_tree(tmp_path, "'src'", setup)
    assert {r for r, _ in reach["libs/pointops/src/knn_query/knn_query_cuda_kernel.cu"]} == {"runs"}
    assert reach["other/stray_kernel.cu"] == {("optional", WHY)}


def test_a_walk_of_an_unread_folder_keeps_the_builders_folder(tmp_path):
    """`os.walk(this_dir)`: which folder is unknown, and unknown is not absent; nothing outside the builder's folder."""
    reach = _walking_tree(tmp_path, "os.path.dirname(os.path.abspath(__file__))")
    assert {r for r, _ in reach["libs/pointops/src/knn_query/knn_query_cuda_kernel.cu"]} == {"runs"}
    assert reach["other/stray_kernel.cu"] == {("optional", WHY)}


def test_a_walk_above_the_root_or_outside_a_build_names_nothing(tmp_path):
    reach = _walking_tree(tmp_path / "above", "'../../../src'")  # climbs out of the tree: nothing of it is named
    assert reach["libs/pointops/src/knn_query/knn_query_cuda_kernel.cu"] == {("optional", WHY)}
    write_tree(tmp_path / "script", {"list_sources.py": "import os\nfor root, _, files in os.walk('libs/pointops/src'):"
                                                        "\n    print(files)\n"})
    reach = _walking_tree(tmp_path / "script", "'csrc'")  # a walk in a file that builds nothing names no source
    assert reach["libs/pointops/src/knn_query/knn_query_cuda_kernel.cu"] == {("optional", WHY)}
    # DeepSpeed's env_report.py: a builder's file walking a toolkit's folder outside its `sources`
    report = ("import os\nfrom torch.utils.cpp_extension import CUDAExtension\n\n\ndef toolkit(home):\n"
              "    return [f for _, _, fs in os.walk(os.path.realpath(home)) for f in fs]\n\n\n"
              "EXT = CUDAExtension('pointops._C', sources=['src/pointops_api.cpp'])\n")
    reach = _walking_tree(tmp_path / "report", "'csrc'", report)
    assert reach["libs/pointops/src/knn_query/knn_query_cuda_kernel.cu"] == {("optional", WHY)}
