"""The custom_ops domain: CUDA/C++ extensions, Triton kernels, autograd Functions, cupy and numba kernels.

Its scanners leave records of kernels, bindings, extensions and calls in each unit's cache; the room keeps them per
file and builds the kernel inventory (the report's `custom_ops`) from the whole project's records."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.written_names import plain_words, word_string_of_bytes
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.analyzer.reading.install_docs import installed_local_folders
from ascend_feasibility.domains.base import IMPORT_TABLE_QUERY, Domain, FileView, ProjectRun, Unit
from ascend_feasibility.domains.custom_ops.absent_sources import sourceless_builds
from ascend_feasibility.domains.custom_ops.binding_reach import (
    orphan_extensions,
    redundant_builds,
    unreached_builds,
    unreached_by_bindings,
)
from ascend_feasibility.domains.custom_ops.build_branches import BuildBranchScanner
from ascend_feasibility.domains.custom_ops.build_routes import built_without_port
from ascend_feasibility.domains.custom_ops.cmake_options import CMakeOptionScanner, opt_in_sources
from ascend_feasibility.domains.custom_ops.cpu_twins import with_cpu_twin
from ascend_feasibility.domains.custom_ops.cuda_only_headers import relocate_host_runtime
from ascend_feasibility.domains.custom_ops.cuda_runtime import CudaRuntimeHostScanner
from ascend_feasibility.domains.custom_ops.device_dispatch import CppDeviceDispatchScanner
from ascend_feasibility.domains.custom_ops.extension_files import compiling_extensions
from ascend_feasibility.domains.custom_ops.extension_host_runtime import fold_extension_host_runtime
from ascend_feasibility.domains.custom_ops.extension_imports import extension_import_findings, import_sites
from ascend_feasibility.domains.custom_ops.fallbacks import (
    fallback_extensions,
    gate_findings,
    gated_extensions,
    relocate_gated,
    relocate_switched,
    switched_extensions,
)
from ascend_feasibility.domains.custom_ops.function_fold import fold_extension_functions
from ascend_feasibility.domains.custom_ops.inventory import build_inventory
from ascend_feasibility.domains.custom_ops.native_scanner import CMakeCudaScanner, NativeSourceScanner
from ascend_feasibility.domains.custom_ops.operators import fold_operator_kernels
from ascend_feasibility.domains.custom_ops.opt_out_builds import name_opt_out_flags
from ascend_feasibility.domains.custom_ops.optimizers import FusedOptimizerScanner
from ascend_feasibility.domains.custom_ops.python_scanner import CustomOpsPythonScanner, backward_pass_phase
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, NativeWords
from ascend_feasibility.domains.custom_ops.routed_kernels import (
    confirmed_routes,
    relocate_routed,
    route_findings,
    routed_kernels,
)
from ascend_feasibility.domains.custom_ops.submodule_extensions import submodule_extension_findings
from ascend_feasibility.domains.custom_ops.tensorrt_plugins import tensorrt_plugins
from ascend_feasibility.domains.custom_ops.triton_fallbacks import else_armed_kernels
from ascend_feasibility.domains.custom_ops.triton_gates import TritonGateScanner
from ascend_feasibility.domains.custom_ops.unlaunched_kernels import unlaunched_kernels
from ascend_feasibility.knowledge import load_extension_operator_classes, load_one_operator_classes

NATIVE_KINDS = frozenset({"cuda", "cpp"})
# a native file without these words is no part of a torch extension: its words are not kept. `at::` is ATen: an
# extension's CPU implementation (box_iou_rotated_cpu.cpp, over at::Tensor through its header) may name nothing else,
# and the CPU-twin test (cpu_twins.py) needs its words
EXTENSION_WORDS = ("torch", "pybind", "PYBIND", "cuda", "__global__", "<<<", "at::")


class CustomOpsDomain(Domain):
    name = "custom_ops"
    scanner_classes = (CustomOpsPythonScanner, FusedOptimizerScanner, TritonGateScanner, BuildBranchScanner,
                       NativeSourceScanner, CudaRuntimeHostScanner, CppDeviceDispatchScanner, CMakeCudaScanner,
                       CMakeOptionScanner)
    facts_type = CustomOpFacts

    def query_keys(self, unit: Unit) -> set[str]:
        return {IMPORT_TABLE_QUERY} if unit.kind == "python" and "import" in unit.source.text else set()

    def collect(self, file: FileView) -> CustomOpFacts:
        facts = CustomOpFacts()
        for unit in file.units:
            if "custom_ops" in unit.cache:
                facts.extend(unit.cache["custom_ops"])
            facts.imports += import_sites(unit)  # matched with the project's CUDA extensions (extension_imports)
            if unit.kind == "shell" and unit.path.endswith(".sh"):  # a script's install lines (PointNeXt's install.sh)
                facts.script_installs += [(unit.path, line, folder)
                                          for line, folder in installed_local_folders(unit.source.text, script=True)]
            if unit.kind in NATIVE_KINDS and any(word in unit.source.text for word in EXTENSION_WORDS):
                facts.native_words.append(NativeWords(unit.path, word_string_of_bytes(plain_words(unit.source.data))))
        return facts

    def add_findings(self, run: ProjectRun) -> None:
        # extensions with a fallback: their native files take the fallback's reach where reach is settled
        merged = CustomOpFacts()
        for facts in run.facts[self.name]:
            merged.extend(facts)
        fallen = fallback_extensions(merged, run)
        for path, place in fallen.items():
            run.guarded.setdefault(path, place)
        # builders optional for a fallback, not for a switch (relocate_switched's OPS092 is about a switch)
        run.published["fallback_builders"] = {p: why for p, (_, why) in fallen.items() if not p.endswith(NATIVE_SUFFIXES)}
        for path, place in redundant_builds(merged, run).items():
            run.guarded.setdefault(path, place)
        for path, place in orphan_extensions(merged, run).items():
            run.guarded.setdefault(path, place)
        for path, place in sourceless_builds(merged, run).items():  # builds of sources the tree does not hold
            run.guarded.setdefault(path, place)
        for path, place in unreached_builds(merged, run).items():  # built only by modules nothing running loads
            run.guarded.setdefault(path, place)
        for path, place in tensorrt_plugins(merged, run).items():
            run.guarded.setdefault(path, place)
        unreached = unreached_by_bindings(merged, run)  # line ranges: context.propagation
        # CUDA sources only an opt-in CMake option compiles, and the CMake arms of that option: optional
        python_refs = {ref.rstrip("/").rsplit("/", 1)[-1] for module in run.modules for ref in module.source_refs}
        opted, arms = opt_in_sources(merged, python_refs)
        for path, why in opted.items():
            run.guarded.setdefault(path, ("optional", why))
        for path, ranges in arms.items():
            unreached.setdefault(path, []).extend(ranges)
        for path, ranges in else_armed_kernels(merged, run).items():
            unreached.setdefault(path, []).extend(ranges)
        for path, ranges in unlaunched_kernels(merged, run).items():  # kernels only uncalled host functions launch
            unreached.setdefault(path, []).extend(ranges)
        run.published["unreached_code"] = unreached
        run.findings += extension_import_findings(merged, run)
        run.findings += submodule_extension_findings(merged, run)  # extensions in submodules not checked out
        # extensions only CUDA arms with a PyTorch other arm reach: one finding at the test; the rest is optional
        run.published["gated_extensions"] = gated = gated_extensions(merged, run)
        run.findings += gate_findings(gated, run)
        # extension ops the project also computes in plain PyTorch: one finding where NPU tensors reach the twin
        # (not at a test that already gates the whole extension)
        gates = {(g.path, g.handle[5]) for g in gated}
        routes = [r for r in confirmed_routes(merged, routed_kernels(merged)) if (r.path, r.line) not in gates]
        run.findings += route_findings(routes, run)

    def report(self, run: ProjectRun) -> None:
        run.findings = relocate_gated(run.findings, run.published.get("gated_extensions", []), run)
        merged = CustomOpFacts()
        for facts in run.facts[self.name]:
            merged.extend(facts)
        # extensions built only behind a switch whose imports the project catches: optional, one finding at the build
        run.findings = relocate_switched(run.findings, switched_extensions(merged, run.findings, run), run)
        run.findings = relocate_routed(run.findings, routed_kernels(merged), run)
        # kernels whose op's dispatcher picks a CPU implementation the extension builds: a CPU build, no blocker
        run.findings = with_cpu_twin(run.findings, merged, run)
        run.findings = backward_pass_phase(run.findings, merged.backward_functions)
        # CUDA runtime names in headers only nvcc units include, or declared by the project for its build without CUDA
        run.findings = relocate_host_runtime(run.findings, merged, run)
        # the runtime calls of host files of an extension whose kernels are items: one item per file, with the kernels
        run.findings = fold_extension_host_runtime(run.findings, merged, run)
        kernels = build_inventory(merged, self.kb)
        run.report_fields["custom_ops"] = run.published["kernels"] = kernels
        compiling = compiling_extensions({row.path for row in kernels}, merged, run)
        folded = fold_operator_kernels(run.findings, kernels, load_one_operator_classes(), compiling,
                                       load_extension_operator_classes())
        run.findings = built_without_port(folded, kernels, run)
        # a CUDA build in an arm the project's own flag leaves out: the finding names the flag
        run.findings = name_opt_out_flags(run.findings, merged, run)
        # an autograd Function over the project's extension op is ported with that op's kernels: one item
        run.findings = fold_extension_functions(run.findings, merged)
