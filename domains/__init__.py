"""Domain scanners. Each is independent: it reads units and returns hits for its own rules."""

from __future__ import annotations

from ascend_feasibility.domains.attention.python_scanner import AttentionPythonScanner
from ascend_feasibility.domains.base import Scanner
from ascend_feasibility.domains.config_scanner import ShellConfigScanner, YamlConfigScanner
from ascend_feasibility.domains.custom_ops.build_branches import BuildBranchScanner
from ascend_feasibility.domains.custom_ops.cuda_runtime import CudaRuntimeHostScanner
from ascend_feasibility.domains.custom_ops.native_scanner import CMakeCudaScanner, NativeSourceScanner
from ascend_feasibility.domains.custom_ops.optimizers import FusedOptimizerScanner
from ascend_feasibility.domains.custom_ops.python_scanner import CustomOpsPythonScanner
from ascend_feasibility.domains.custom_ops.triton_gates import TritonGateScanner
from ascend_feasibility.domains.device.amp_imports import CudaAmpImportScanner
from ascend_feasibility.domains.device.dispatch import BackendDispatchScanner
from ascend_feasibility.domains.device.python_scanner import DevicePythonScanner
from ascend_feasibility.domains.device.resources import DeviceResourceScanner, NvidiaSmiShellScanner
from ascend_feasibility.domains.distributed.python_scanner import DistributedPythonScanner
from ascend_feasibility.domains.precision.bf16_gates import Bf16GateScanner
from ascend_feasibility.domains.precision.dtype_flow import PrecisionDtypeFlowScanner
from ascend_feasibility.domains.precision.python_scanner import PrecisionPythonScanner

SCANNER_CLASSES: tuple[type[Scanner], ...] = (
    DevicePythonScanner,
    DeviceResourceScanner,
    NvidiaSmiShellScanner,
    CudaAmpImportScanner,
    BackendDispatchScanner,
    DistributedPythonScanner,
    PrecisionPythonScanner,
    PrecisionDtypeFlowScanner,
    Bf16GateScanner,
    AttentionPythonScanner,
    CustomOpsPythonScanner,
    FusedOptimizerScanner,
    TritonGateScanner,
    BuildBranchScanner,
    NativeSourceScanner,
    CudaRuntimeHostScanner,
    CMakeCudaScanner,
    ShellConfigScanner,
    YamlConfigScanner,
)


def build_scanners(kb, target) -> list[Scanner]:
    return [cls(kb, target) for cls in SCANNER_CLASSES]
