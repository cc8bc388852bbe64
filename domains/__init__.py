"""Domain scanners. Each is independent: it reads units and returns hits for its own rules."""

from __future__ import annotations

from domains.base import Scanner
from domains.device.config_scanner import DeviceShellScanner, DeviceYamlScanner
from domains.device.python_scanner import DevicePythonScanner

SCANNER_CLASSES: tuple[type[Scanner], ...] = (DevicePythonScanner, DeviceShellScanner, DeviceYamlScanner)


def build_scanners(kb, target) -> list[Scanner]:
    return [cls(kb, target) for cls in SCANNER_CLASSES]
