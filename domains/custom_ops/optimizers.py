"""torch.optim optimizers asked for PyTorch's fused kernel (`fused=True`) where the target torch_npu has none.

`torch.optim.X(fused=True)` calls one of PyTorch's fused aten kernels (`_fused_adamw_`, `_fused_adam_`, `_fused_sgd_`,
`_fused_adagrad_`; knowledge/custom_ops/fused_optimizers.toml). Whether the target torch_npu registers that kernel
for the NPU is ops.toml's `[aten]` table (`availability.has_kernel`): `AdamW(fused=True)` runs as written on most
releases and is flagged only at a target without `_fused_adamw_`; the others are flagged wherever their kernel is
missing. The same holds through `ZeroRedundancyOptimizer(optimizer_class=X, fused=True)`, which passes its remaining
keyword arguments to the optimizer it builds. `fused=False` and no `fused` are left alone.

Third-party fused optimizers are constructed calls of the names listed in the same file: those whose CUDA extension
has no Ascend build (DeepSpeed's FusedLamb, ColossalAI's Fused*, apex's Fused*) and those with an NPU path
(DeepSpeed's FusedAdam and DeepSpeedCPUAdam, ColossalAI's HybridAdam); apex's fused normalisation layers, which
load a CUDA extension when constructed, are listed there too."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.base import Hit, Unit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, keywords, unit_references
from ascend_feasibility.knowledge import availability, load_fused_optimizers
from tree_sitter import Node


class _FusedOptimizerScan(PythonScan):
    target = None  # set per scan by the scanner: the kernels depend on the target release

    def run(self) -> list[Hit]:
        table = load_fused_optimizers()
        for reference in unit_references(self.unit):
            if reference.call is None:
                continue
            if reference.name in table.cuda_extension:
                self.hit("fused-optimizer-cuda-extension", reference.name, reference.node)
                continue
            if reference.name in table.npu_builder:
                self.hit("fused-optimizer-npu-builder", reference.name, reference.node)
                continue
            if reference.name in table.apex_norms:
                self.hit("apex-fused-norm", reference.name, reference.node)
                continue
            named = keywords(reference.call)
            fused = named.get("fused")
            if fused is None or fused.type != "true":
                continue
            name, symbol = reference.name, f"{reference.name}(fused=True)"
            if name in table.wrappers:
                name = self._optimizer_class(named.get("optimizer_class"))
                symbol = f"{reference.name}(optimizer_class={name}, fused=True)"
            optimizer = table.find(name) if name else None
            if optimizer is None:
                continue
            decoupled = named.get("decoupled_weight_decay")
            kernel = optimizer.kernel
            if optimizer.decoupled_kernel and decoupled is not None and decoupled.type == "true":
                kernel = optimizer.decoupled_kernel
            if availability.has_kernel(self.index.kb, kernel, self.target.release):
                continue
            self.hit("fused-optimizer-no-npu-kernel", symbol, fused.parent, optimizer.npu)
        return self.hits

    def _optimizer_class(self, value: Node | None) -> str | None:
        if value is None or value.type not in {"identifier", "attribute"}:
            return None
        return qualified_name(value, self.imports) or parsing.text(value)


class FusedOptimizerScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("fused=True", "Fused", "CPUAdam", "HybridAdam")
    scan_class = _FusedOptimizerScan

    def scan(self, unit: Unit) -> list[Hit]:
        scan = self.scan_class(self.index, unit)
        scan.target = self.target
        return scan.run()
