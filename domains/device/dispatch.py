"""Backend dispatch chains without an NPU arm.

An `if/elif` chain, or a run of separate `if`s side by side (analyzer/context/dispatch_chains.py), whose conditions
name CUDA and at least one other accelerator backend (ROCm, XPU, MPS, MLU, HPU, MUSA, XLA; availability flags such as
`HAS_CUDA` / `HAS_XPU` included), in two or more of its arms, picks a device, a platform, its dependencies, a cache
call or a per-device property (the core count used for kernel grids) backend by backend: the code is built for more
than one backend and the NPU needs its own arm. The chain is reported once, at its first arm, unless one of its
conditions, or a condition it is nested in, already names the NPU (or Ascend); the sites in its CUDA arm are CUDA's own
code (the guard reader gives them reach other-backend). A chain whose final `else` only raises fails on the NPU
(facet `raises`, high): the missing arm is a crash, not a fall-through to generic code. A chain whose CUDA arm names
an ONNX Runtime execution provider for NVIDIA GPUs (`InferenceSession(..., providers=["CUDAExecutionProvider"])`,
analyzer/context/runtime_providers.py) picks ONNX Runtime's provider, not a torch device (facet `runtime-provider`, low,
round 27 B1 C7): the NPU arm it lacks asks for CANNExecutionProvider (onnxruntime-cann), not torch_npu. A chain that only picks a torch device and probes CUDA with
`torch.cuda.is_available()` alone is left to DEV104 at its probe (analyzer/context/shim_chains.py): the shim covers it.
A chain whose arms only release cached memory, wait for the device or log a memory figure, each through its own
backend's module (facet `housekeeping`, analyzer/context/housekeeping_chains.py), is listed at info: a missing NPU arm
only skips that housekeeping."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import (
    BackendWords,
    Chain,
    backend_words,
    cuda_arm,
    dispatch_chain,
    npu_arm,
    sibling_run,
)
from ascend_feasibility.analyzer.context.guards import only_raises
from ascend_feasibility.analyzer.context.housekeeping_chains import only_housekeeping
from ascend_feasibility.analyzer.context.runtime_providers import cuda_provider_named
from ascend_feasibility.analyzer.context.shim_chains import shim_covered_device_choice
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.device.fast_path import RUNTIME_PROVIDER
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.knowledge import load_context_conventions

QUERY = r"""
(if_statement) @chain
"""


HOUSEKEEPING = "housekeeping"  # every arm only releases, waits or logs a memory figure (housekeeping_chains.py)
RAISES = "raises"  # the chain's final else only raises: on the NPU it fails there (scout 13: TGI layernorm.py:187)

# the arm when the CUDA test cannot be renamed: it is shared with another backend, or a flag of the project's own
FALLBACK_ARM = "if torch.npu.is_available():\n    ..."


def backends_read() -> BackendWords:
    conventions = load_context_conventions()
    return backend_words(conventions.guards, conventions.backends)


class _DispatchScan(PythonScan):
    QUERY = QUERY

    def run(self) -> list[Hit]:
        backends = backends_read()
        conventions = load_context_conventions().backends
        every = backends.cuda | backends.others | backends.npu
        for statement in self.captures().get("chain", []):
            alternatives = statement.children_by_field_name("alternative")
            if not alternatives:
                run = sibling_run(statement, every)
                if run[0].id != statement.id or len(run) < 2:
                    continue  # a later member of a run of separate ifs (read from its first), or an if alone: one arm
            elif not any(clause.type == "elif_clause" for clause in alternatives):
                continue  # `if ... else`: one condition, and a chain needs two arms that name a backend
            chain = dispatch_chain(statement, backends)
            if chain is None or shim_covered_device_choice(chain, backends, self.imports):
                continue  # no chain; or a device pick transfer_to_npu covers: DEV104 at its probe says what to do
            names = ", ".join(sorted(chain.named))
            arm = npu_arm(chain, backends) or FALLBACK_ARM
            raises = (RAISES,) if chain.else_body is not None and only_raises(chain.else_body) else ()
            provider = (RUNTIME_PROVIDER,) if _picks_runtime_provider(chain, backends) else ()
            housekeeping = (HOUSEKEEPING,) if only_housekeeping(chain, self.imports, conventions) else ()
            self.hit("backend-dispatch-without-npu", f"{' '.join(parsing.text(chain.head).split())[:80]} ({names})",
                     chain.head, npu=arm, facets=(*raises, *provider, *housekeeping))
        return self.hits


def _picks_runtime_provider(chain: Chain, backends: BackendWords) -> bool:
    """Does a CUDA arm of the chain name an ONNX Runtime execution provider for NVIDIA GPUs (outside a message)?"""
    return any(cuda_arm(chain, body, backends) and cuda_provider_named(body) is not None for _test, body in chain.arms)


class BackendDispatchScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("xpu", "mps", "rocm", "mlu", "hpu", "musa", "hip", "xla")
    scan_class = _DispatchScan
