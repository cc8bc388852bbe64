"""OPS013 at a wrapper module whose product importers all catch its ImportError (Pointcept's pointgroup_ops, round 39
B1 row 17): no module fails to load, the try/except is there; the work named is the ops the importers bind."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

SETUP = ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
         "setup(name='pg_ops', packages=['pg_ops'], package_dir={'pg_ops': 'functions'},\n"
         "      ext_modules=[CUDAExtension(name='pg_ops_cuda', sources=['src/ball.cpp', 'src/ball_kernel.cu'])],\n"
         "      cmdclass={'build_ext': BuildExtension})\n")
KERNEL = ("#include <torch/extension.h>\n__global__ void ball_kernel(float* a) { a[0] = 1; }\n"
          "void ball_cuda(float* a) { ball_kernel<<<1, 1>>>(a); }\n")
BINDING = ("#include <torch/extension.h>\nvoid ball_cuda(float* a);\n"
           "void ball(torch::Tensor a) { ball_cuda(a.data_ptr<float>()); }\n"
           "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"ball\", &ball, \"ball\"); }\n")
WRAPPER = "import torch\nimport pg_ops_cuda\n\n\ndef ball_query(x):\n    return pg_ops_cuda.ball(x)\n\n\ndef cluster(x):\n    return x\n"
GUARDED = ("import torch\n\ntry:\n    from pg_ops import ball_query, cluster\nexcept ImportError:\n"
           "    ball_query, cluster = None, None\n\n\nclass PointGroup(torch.nn.Module):\n"
           "    def forward(self, x):\n        return cluster(ball_query(x))\n")
PLAIN = "import torch\nfrom pg_ops import ball_query\n\n\ndef group(x):\n    return ball_query(x)\n"
RUN = "from models.point_group import PointGroup\n\nif __name__ == '__main__':\n    print(PointGroup()(1))\n"


def _tree(**changes: str | None) -> dict[str, str]:
    files = {"libs/pg_ops/setup.py": SETUP, "libs/pg_ops/src/ball_kernel.cu": KERNEL, "libs/pg_ops/src/ball.cpp": BINDING,
             "libs/pg_ops/functions/__init__.py": "from .functions import ball_query, cluster\n",
             "libs/pg_ops/functions/functions.py": WRAPPER, "models/__init__.py": "",
             "models/point_group.py": GUARDED, "run.py": RUN}
    files.update(changes)
    return {name: text for name, text in files.items() if text is not None}


def _ops013(tmp_path, files):
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    return next(f for f in report.findings if f.rule == "OPS013" and f.path == "libs/pg_ops/functions/functions.py")


def test_a_wrapper_every_product_importer_guards_names_the_ops_they_bind(tmp_path):
    finding = _ops013(tmp_path, _tree())
    # the package is installed on its own (libs/pg_ops/setup.py) and imported only behind guards, so the whole extension
    # is optional (prec48d): medium as counted, low as it is not
    assert (finding.severity, finding.reach) == ("low", "optional")
    assert "already catches the ImportError" in finding.message.en
    assert "every module importing this one fails to load" not in finding.message.en
    assert "`ball_query`, `cluster`" in finding.replacement.en
    assert "already in place" in finding.replacement.en


def test_an_unguarded_product_importer_keeps_the_import_high(tmp_path):
    run = RUN + "from models.group import group\n"
    finding = _ops013(tmp_path, _tree(**{"models/group.py": PLAIN, "run.py": run}))
    assert finding.severity == "high"
    assert "every module importing this one fails to load" in finding.message.en


def test_a_wrapper_no_product_file_imports_keeps_its_own_reading(tmp_path):
    finding = _ops013(tmp_path, _tree(**{"models/point_group.py": "import torch\n"}))
    assert "already catches the ImportError" not in finding.message.en


def test_an_unguarded_importer_no_code_loads_is_no_importer(tmp_path):
    """Pointcept's point_group/utils.py imports pointgroup_ops plainly, and nothing imports it."""
    finding = _ops013(tmp_path, _tree(**{"models/group.py": PLAIN}))
    assert (finding.severity, finding.reach) == ("low", "optional")
    assert "already catches the ImportError" in finding.message.en
