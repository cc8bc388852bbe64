"""The device domain: torch.cuda APIs, device strings, AMP, backends, compile, profiler, environment variables."""

from __future__ import annotations

from ascend_feasibility.domains.base import Domain
from ascend_feasibility.domains.device.amp_imports import CudaAmpImportScanner
from ascend_feasibility.domains.device.dispatch import BackendDispatchScanner
from ascend_feasibility.domains.device.enumerations import AcceleratorEnumerationScanner
from ascend_feasibility.domains.device.python_scanner import DevicePythonScanner
from ascend_feasibility.domains.device.rng_state import DeviceRngStateScanner
from ascend_feasibility.domains.device.resources import DeviceResourceScanner, NvidiaSmiShellScanner


class DeviceDomain(Domain):
    name = "device"
    scanner_classes = (DevicePythonScanner, DeviceResourceScanner, NvidiaSmiShellScanner, CudaAmpImportScanner,
                       BackendDispatchScanner, AcceleratorEnumerationScanner, DeviceRngStateScanner)
