"""An extension built by its own setup.py below the root, whose Python package that setup() installs under another
name (Pointcept's libs/pointgroup_ops: `package_dir={"pointgroup_ops": "functions"}`), and which the product imports
only behind guards (`try: from pointgroup_ops import ... except ImportError: ... = None`), need not run: its kernels,
binding, build and package are optional with that reason (round 39 V-4). An unguarded import, or the root's own
setup.py, keeps them counted. A folder-walking build's extension imported only by optional modules is optional too."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reporting.localize import phrase
from ascend_feasibility.domains.custom_ops.installed_packages import installed_packages

from tests.helpers import reported_at, write_tree

SETUP = '''from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="pg_ops",
    packages=["pg_ops"],
    package_dir={"pg_ops": "functions"},
    ext_modules=[CUDAExtension(name="pg_ops_cuda", sources=["src/bfs.cpp", "src/bfs_kernel.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
'''
FUNCTIONS = "import torch\nimport pg_ops_cuda\n\n\ndef bfs_cluster(x):\n    return pg_ops_cuda.bfs_cluster(x.cuda())\n"
BINDING = ("#include <torch/extension.h>\nvoid bfs_cluster(at::Tensor x);\n"
           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"bfs_cluster\", &bfs_cluster); }\n")
KERNEL = ("#include <cuda_runtime.h>\n__global__ void bfs_kernel(float* x) { x[threadIdx.x] = 0; }\n"
          "void bfs_cluster(at::Tensor x) { bfs_kernel<<<1, 1>>>(x.data_ptr<float>()); }\n")
GUARDED = ("import torch.nn as nn\n\ntry:\n    from pg_ops import bfs_cluster\nexcept ImportError:\n"
           "    bfs_cluster = None\n\n\nclass Group(nn.Module):\n    def forward(self, x):\n        return bfs_cluster(x)\n")
PLAIN = "import torch.nn as nn\nfrom pg_ops import bfs_cluster\n\n\nclass Group(nn.Module):\n    pass\n"
TRAIN = ("import torch\nfrom pkg.models import Group\n\nif __name__ == \"__main__\":\n"
         "    Group()(torch.zeros(3).cuda())\n")
OWN = ("libs/pg/setup.py", "libs/pg/src/bfs_kernel.cu", "libs/pg/src/bfs.cpp", "libs/pg/functions/functions.py")


def _tree(tmp_path, user: str, folder: str = "libs/pg") -> dict[str, set[tuple[str, str | None]]]:
    write_tree(tmp_path, {
        f"{folder}/setup.py".lstrip("/"): SETUP,
        f"{folder}/functions/__init__.py".lstrip("/"): "from .functions import bfs_cluster\n",
        f"{folder}/functions/functions.py".lstrip("/"): FUNCTIONS,
        f"{folder}/src/bfs.cpp".lstrip("/"): BINDING,
        f"{folder}/src/bfs_kernel.cu".lstrip("/"): KERNEL,
        "pkg/__init__.py": "", "pkg/models/__init__.py": "from .group import Group\n", "pkg/models/group.py": user,
        "train.py": TRAIN,
    })
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings:
        for path in reported_at(f):
            found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def test_a_separately_installed_package_imported_only_behind_guards_is_optional(tmp_path):
    reach = _tree(tmp_path, GUARDED)
    why = ("installed on its own by libs/pg/setup.py as pg_ops, which the project imports only behind guards "
           "(pkg/models/group.py): the project runs without the extension")
    for path in OWN:
        if path in reach:
            assert reach[path] == {("optional", why)}, path
    assert "libs/pg/src/bfs_kernel.cu" in reach and "libs/pg/setup.py" in reach
    assert phrase("zh", why) != why


def test_an_unguarded_import_or_the_roots_own_install_keeps_it_counted(tmp_path):
    reach = _tree(tmp_path / "plain", PLAIN)
    assert {r for r, _ in reach["libs/pg/src/bfs_kernel.cu"]} == {"runs"}
    assert {r for r, _ in reach["libs/pg/setup.py"]} == {"runs"}
    reach = _tree(tmp_path / "root", GUARDED, folder="")  # the project's own setup.py builds it
    assert {r for r, _ in reach["src/bfs_kernel.cu"]} == {"runs"}


def test_installed_packages_reads_renamed_top_level_packages_only():
    source = ("setup(package_dir={'pg_ops': 'functions', 'same': 'lib/same', 'a.b': 'x', '': 'src'},\n"
              "      ext_modules=[CUDAExtension('e', ['a.cu'])])\n").encode()
    call = next(n for n in _calls(parsing.parse("python", source)) if n.child_by_field_name("function").text
                == b"CUDAExtension")
    assert installed_packages(call) == [("pg_ops", "functions")]
    outside = parsing.parse("python", b"CUDAExtension('e', ['a.cu'])\n")  # no setup() around it
    assert installed_packages(next(_calls(outside))) == []


def _calls(node):
    if node.type == "call":
        yield node
    for child in node.children:
        yield from _calls(child)


WALKING_SETUP = ("import os\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n\n"
                 "src = 'src'\nsources = [os.path.join(r, f) for r, _, fs in os.walk(src) for f in fs if f.endswith('.cu')]\n"
                 "setup(name='p2', ext_modules=[CUDAExtension(name='p2_cuda', sources=sources)])\n")


def test_a_walked_build_imported_only_by_an_optional_module_is_optional(tmp_path):
    """Pointcept's libs/pointops2: every .cu under src/ is compiled (os.walk), and its only importer is optional
    (there imported by nothing; here only behind a guard): the kernels and the build follow the importer."""
    write_tree(tmp_path, {
        "p2ops/setup.py": WALKING_SETUP, "p2ops/__init__.py": "", "p2ops/functions.py": "import torch\nimport p2_cuda\n",
        "p2ops/src/pointops_api.cpp": BINDING, "p2ops/src/knn/knn_kernel.cu": KERNEL,
        "pkg/__init__.py": "", "pkg/models/__init__.py": "from .group import Group\n",
        "pkg/models/group.py": GUARDED.replace("from pg_ops import bfs_cluster", "from p2ops.functions import torch"),
        "train.py": TRAIN,
    })
    found = {path: (f.reach, f.reach_reason or "") for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
             for path in reported_at(f) if path.startswith("p2ops/")}
    for path in ("p2ops/src/knn/knn_kernel.cu", "p2ops/setup.py"):
        assert found[path][0] == "optional" and found[path][1].startswith("imported only by p2ops/functions.py"), path
