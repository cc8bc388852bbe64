"""Build branches that choose the CUDA extension by availability.

`if torch.cuda.is_available() or os.getenv("FORCE_CUDA") == "1": extension = CUDAExtension` (with its sources and
include dirs), `elif ...mlu...: extension = MLUExtension`: the build picks its extension class by backend, and the
NPU needs its own arm. Reported once, at the condition of the branch that selects CUDAExtension, unless the chain
already has an NPU arm. A CUDAExtension(...) call is OPS020's; this is the branch that names the class without
calling it."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import chain_arms, lacks_npu_arm, selects_cuda_extension, words
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.device.dispatch import backends_read
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan

QUERY = r"""
(if_statement) @build_chain
"""


class _BuildBranchScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        backends = backends_read()
        for chain in self.captures().get("build_chain", []):
            for condition, body in chain_arms(chain):
                if words(condition) & backends.cuda and selects_cuda_extension(body) and lacks_npu_arm(chain, backends.npu):
                    self.hit("cuda-extension-build-branch", " ".join(parsing.text(condition).split())[:100], condition,
                             facets=("raises",) if _else_raises(chain) else ())
                    break
        return self.hits


def _else_raises(chain) -> bool:
    """The chain's `else:` arm raises before it does anything else (InternImage's ops_dcnv3/setup.py:
    `else: raise NotImplementedError('Cuda is not availabel')`): without CUDA the build stops, it builds no CPU variant."""
    other = next((c for c in chain.children_by_field_name("alternative") if c.type == "else_clause"), None)
    body = other.child_by_field_name("body") if other is not None else None
    statements = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    return bool(statements) and statements[0].type == "raise_statement"


class BuildBranchScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("CUDAExtension",)
    scan_class = _BuildBranchScan
