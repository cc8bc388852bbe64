"""Sites that belong to another vendor's machinery, not to torch's device (round 27: A2 C7, B1 C7, A2 C9, A1 C3)."""

from __future__ import annotations

from tests.helpers import scan

GATED_BUILD = """import torch
from torch.utils.cpp_extension import CUDA_HOME, CppExtension, CUDAExtension
def get_extensions():
    if torch.cuda.is_available() and CUDA_HOME is not None:
        extension = CUDAExtension
        sources = ["src/cuda/ms_deform_attn_cuda.cu"]
    else:
        raise NotImplementedError("Cuda is not available")
    return extension, sources
extension, sources = get_extensions()
"""


def rules_on(code: str, line: int, path: str | None = None) -> list[str]:
    return sorted(f.rule for f in scan(code, path=path).findings if f.line == line)


def test_a_build_gate_that_ops062_judges_is_one_item():
    # the CUDA test of the branch that selects CUDAExtension: OPS062's gate; DEV104's "test torch.npu.is_available()"
    # would send the NPU host into the .cu build
    assert rules_on(GATED_BUILD, 4, "setup.py") == ["OPS062"]


def test_an_availability_test_with_no_extension_choice_keeps_dev104():
    plain = "import torch\ndef pick():\n    if torch.cuda.is_available():\n        return 'cuda'\n    return 'cpu'\n"
    assert "DEV104" in rules_on(plain, 3)


README = """# Demo

```bash
pip install torch==2.0.1
pip install --no-cache-dir -U openmim
mim install mmengine
mim install "mmcv==2.0.1"
mim install "mmpose==1.1.0"
```
"""


def _matrix(tmp_path, code: str):
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    (tmp_path / "README.md").write_text(README)
    (tmp_path / "requirements.txt").write_text("numpy\n")
    (tmp_path / "infer.py").write_text(code)
    return {row.package: row for row in analyze(tmp_path, AnalyzeOptions(jobs=1)).dependency_matrix}


def test_a_readme_mim_install_of_a_library_an_imported_one_requires_has_a_row(tmp_path):
    # round 27 verdict V4: mmpose's own requirements install mmcv; the README's mim line pins which
    rows = _matrix(tmp_path, "import torch\nfrom mmpose.apis import init_model\nmodel = init_model('c', 'w', device='cpu')\n")
    assert rows["mmcv"].declared == "==2.0.1" and rows["mmcv"].sources == ["README.md:7"]
    assert not rows["mmcv"].imported


def test_a_readme_mim_install_nothing_the_code_imports_requires_has_no_row(tmp_path):
    rows = _matrix(tmp_path, "import torch\nx = torch.ones(2)\n")
    assert "mmcv" not in rows and "mmpose" not in rows
