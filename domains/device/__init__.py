"""The device domain: torch.cuda APIs, device strings, AMP, backends, compile, profiler, environment variables."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.findings import Place
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.domains.base import DEFINITIONS_QUERY, Domain, FileView, ProjectRun, Unit
from ascend_feasibility.domains.device import (
    attribute_reads,
    build_checks,
    device_classes,
    device_counts,
    enum_strings,
    mask_defaults,
    unread_constants,
    unread_parameters,
)
from ascend_feasibility.domains.device.amp_imports import CudaAmpImportScanner
from ascend_feasibility.domains.device.dispatch import BackendDispatchScanner
from ascend_feasibility.domains.device.enumerations import AcceleratorEnumerationScanner
from ascend_feasibility.domains.device.library_choice import LibraryChoiceScanner
from ascend_feasibility.domains.device.python_scanner import DevicePythonScanner
from ascend_feasibility.domains.device.resources import DeviceResourceScanner, NvidiaSmiShellScanner
from ascend_feasibility.domains.device.rng_state import DeviceRngStateScanner
from ascend_feasibility.domains.device.spec_table import GpuSpecTableScanner
from ascend_feasibility.knowledge import load_context_conventions


class DeviceDomain(Domain):
    name = "device"
    scanner_classes = (DevicePythonScanner, DeviceResourceScanner, NvidiaSmiShellScanner, CudaAmpImportScanner,
                       BackendDispatchScanner, AcceleratorEnumerationScanner, DeviceRngStateScanner,
                       GpuSpecTableScanner, LibraryChoiceScanner)
    facts_type = enum_strings.DeviceFacts

    def query_keys(self, unit: Unit) -> set[str]:
        text = unit.source.text
        keys = enum_strings.query_keys() if unit.cell is None and "cuda" in text and enum_strings.wanted(text) else set()
        return keys | {DEFINITIONS_QUERY} if unit.cell is None and device_classes.wanted(unit) else keys

    def collect(self, file: FileView) -> enum_strings.DeviceFacts | None:
        """The file's project Enums with a "cuda" member, the parameters converted to them and the "cuda" literals
        it passes to calls (domains/device/enum_strings.py), and where it counts the visible devices
        (domains/device/device_counts.py)."""
        facts = enum_strings.DeviceFacts(path=file.path)
        for unit in file.units:
            if unit.kind != "python" or unit.cell is not None or not unit.parsed:
                continue
            facts.device_counts += device_counts.counting_sites(unit)
            defaults, reads = mask_defaults.read(unit)
            facts.mask_defaults += defaults
            facts.mask_reads += reads
            reads = attribute_reads.read(unit)
            facts.attribute_reads += sorted(reads)
            checks, asserted = build_checks.read(unit.tree(), unit.source.text, _build_names(), unit.import_statements)
            facts.build_checks += checks
            facts.asserted_calls += asserted
            if device_classes.wanted(unit):
                facts.device_classes += device_classes.read(unit)
            if "cuda" not in unit.source.text:
                continue
            if enum_strings.wanted(unit.source.text):
                found = enum_strings.collect(file.path, unit)
                facts.cuda_enums += found.cuda_enums
                facts.device_enums += found.device_enums
                facts.enum_parameters += found.enum_parameters
                facts.cuda_arguments += found.cuda_arguments
            facts.unread_constants += unread_constants.read(unit.tree())
            facts.unread_defaults += unread_parameters.read(unit)
            if "self." in unit.source.text:
                facts.unread_stores += unread_constants.unread_stores(unit.tree(), unit.source.text)
                facts.stored_only += unread_constants.stored_only(unit.tree(), unit.source.text, reads)
        return None if facts.empty() else facts

    def add_findings(self, run: ProjectRun) -> None:
        classes = {f.path: f.device_classes for f in run.facts[self.name] if f is not None and f.device_classes}
        if classes:
            run.findings += device_classes.findings(classes, run)

    def report(self, run: ProjectRun) -> None:
        collected = [f for f in run.facts[self.name] if f is not None]
        # a capability check that tests a CUDA build, asserted by a caller: False on Ascend stops the caller
        checks = {f.path: f.build_checks for f in collected if f.build_checks}
        if checks:
            guards = load_context_conventions().guards
            run.findings = build_checks.asserted_checks(
                run.findings, checks, {f.path: f.asserted_calls for f in collected if f.asserted_calls}, run.context,
                run.factory, frozenset(guards.build_check_rules))
        # a "cuda" literal that a project function turns into its own Enum's member is no device string
        sites = set(enum_strings.enum_strings(collected))
        # a module-level device constant that nothing reads takes effect nowhere
        sites |= unread_constants.unread({f.path: f.unread_constants for f in collected if f.unread_constants}, run.modules)
        # a parameter's default the function only compares with a sentinel, or never reads, is no device string
        sites |= {(f.path, line) for f in collected for line in f.unread_defaults}
        if sites:
            run.findings = [f for f in run.findings
                            if not (f.rule in enum_strings.DEVICE_STRING_RULES and (f.path, f.line) in sites)]
        # a launcher's device pin matters where the program it runs counts the visible devices
        counts = {f.path: f.device_counts for f in collected if f.device_counts}
        run.findings = device_counts.counted_pins(run.findings, counts, run.modules, run.factory)
        # the project's own default for CUDA_VISIBLE_DEVICES: one item at the write, its reads follow it
        run.findings = mask_defaults.followed(run.findings, {f.path: f.mask_defaults for f in collected if f.mask_defaults},
                                              {f.path: f.mask_reads for f in collected if f.mask_reads}, run.factory)
        # a query's value or a device string stored in an attribute nothing reads changes nothing that runs
        stores = unread_constants.unread_attributes({f.path: f.unread_stores for f in collected if f.unread_stores},
                                                    run.modules)
        members = unread_constants.unread_members({f.path: f.stored_only for f in collected if f.stored_only},
                                                  {f.path: set(f.attribute_reads) for f in collected})
        for path, found in members.items():
            stores.setdefault(path, []).extend(found)
        if stores:
            run.findings = _unread_stores(run.findings, stores, run)


def _build_names() -> frozenset[str]:
    global _BUILD_NAMES
    if _BUILD_NAMES is None:
        _BUILD_NAMES = frozenset(load_context_conventions().guards.cuda_build)
    return _BUILD_NAMES


_BUILD_NAMES: frozenset[str] | None = None


def _unread_stores(findings: list[Finding], stores: dict[str, list[tuple[int, int, str]]], run: ProjectRun) -> list[Finding]:
    rules = frozenset(load_context_conventions().guards.display_rules) | unread_constants.STORED_STRING_RULES
    result = []
    for finding in findings:
        store = next(((first, name) for first, last, name in stores.get(finding.path, ())
                      if first <= finding.line <= last), None) if finding.rule in rules and finding.reach == "runs" else None
        if store is not None:
            reason = f"line {store[0]}: stored in self.{store[1]}, which nothing in the project reads"
            finding = run.factory.relocate(finding, Place(finding.role, "cosmetic", reason)).model_copy(
                update={"severity": "info"})
        result.append(finding)
    return result
