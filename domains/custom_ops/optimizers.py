"""torch.optim optimizers asked for PyTorch's fused kernel (`fused=True`) where torch_npu has none.

torch_npu's op-plugin implements only the fused AdamW step (`aten::_fused_adamw_`); `Adam`, `SGD` and `Adagrad`
with `fused=True` call fused kernels that the released op-plugin branches do not implement. `fused=False` and
AdamW are left alone."""

from __future__ import annotations

from domains.base import Hit
from domains.python_refs import PythonDomainScanner, PythonScan, keywords, unit_references

# the torch.optim classes whose fused kernel has no NPU implementation (AdamW's has)
FUSED_WITHOUT_NPU_KERNEL = {"torch.optim.Adam", "torch.optim.SGD", "torch.optim.Adagrad",
                            "torch.optim.adam.Adam", "torch.optim.sgd.SGD", "torch.optim.adagrad.Adagrad"}


class _FusedOptimizerScan(PythonScan):
    def run(self) -> list[Hit]:
        for reference in unit_references(self.unit):
            if reference.call is None or reference.name not in FUSED_WITHOUT_NPU_KERNEL:
                continue
            fused = keywords(reference.call).get("fused")
            if fused is not None and fused.type == "true":
                self.hit("fused-optimizer-no-npu-kernel", f"{reference.name}(fused=True)", fused.parent)
        return self.hits


class FusedOptimizerScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("fused=True",)
    scan_class = _FusedOptimizerScan
