"""The import line of CUDA AMP names: `from torch.cuda.amp import autocast, GradScaler` (and `import
torch.cuda.amp as amp`). Their uses are torch.cuda findings (DEV140-142); a port changes this line too.

The symbol is the first name the line imports (`torch.cuda.amp.autocast`), so that the line is automatic exactly
where transfer_to_npu redirects that name; a module import has the module as its symbol."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan

QUERY = r"""
(import_from_statement module_name: (dotted_name) @amp_module)
(import_statement name: (aliased_import name: (dotted_name) @amp_module))
"""

CUDA_AMP_MODULES = {"torch.cuda.amp", "torch.cuda.amp.autocast_mode", "torch.cuda.amp.grad_scaler"}


class _AmpImportScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        for module in self.captures().get("amp_module", []):
            name = "".join(parsing.text(module).split())
            if name not in CUDA_AMP_MODULES:
                continue
            statement = module.parent
            if statement.type == "import_from_statement":
                names = statement.children_by_field_name("name")
                first = names[0] if names else None
                if first is not None and first.type == "aliased_import":
                    first = first.child_by_field_name("name")
                if first is not None:
                    name = f"{name}.{parsing.text(first)}"
            else:
                statement = statement.parent
            self.hit("torch-cuda-amp-import", name, statement)
        return self.hits


class CudaAmpImportScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("torch.cuda.amp",)
    scan_class = _AmpImportScan
