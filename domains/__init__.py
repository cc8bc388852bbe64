"""Domain scanners. Each is independent: it reads units and returns hits for its own rules."""

from __future__ import annotations

from domains.attention.python_scanner import AttentionPythonScanner
from domains.base import Scanner
from domains.config_scanner import ShellConfigScanner, YamlConfigScanner
from domains.custom_ops.build_branches import BuildBranchScanner
from domains.custom_ops.native_scanner import CMakeCudaScanner, NativeSourceScanner
from domains.custom_ops.optimizers import FusedOptimizerScanner
from domains.custom_ops.python_scanner import CustomOpsPythonScanner
from domains.custom_ops.triton_gates import TritonGateScanner
from domains.device.amp_imports import CudaAmpImportScanner
from domains.device.dispatch import BackendDispatchScanner
from domains.device.python_scanner import DevicePythonScanner
from domains.device.resources import DeviceResourceScanner, NvidiaSmiShellScanner
from domains.distributed.python_scanner import DistributedPythonScanner
from domains.precision.bf16_gates import Bf16GateScanner
from domains.precision.dtype_flow import PrecisionDtypeFlowScanner
from domains.precision.python_scanner import PrecisionPythonScanner

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
    CMakeCudaScanner,
    ShellConfigScanner,
    YamlConfigScanner,
)


def build_scanners(kb, target) -> list[Scanner]:
    return [cls(kb, target) for cls in SCANNER_CLASSES]
